/**
 * Per-hardware calibration from a handful of measurements on the user's machine: a
 * multiplicative correction, the geometric mean of measured ÷ predicted (a shift in log space),
 * fitted only on what was measured. MAPE before and after is reported on held-out points
 * (leave-one-out: each point is predicted by a correction fitted on the others), so the
 * improvement is not measured on the points that produced it. The corrected prediction is still
 * clamped by the roofline bound.
 */
import { z } from 'zod'
import { KerneltuneError, parseWith, type Prediction } from '@kerneltune/core'
import { parseQuery, queryBound, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'
import type { LearnedModel } from './learned.ts'

export interface LocalMeasurement {
  query: ThroughputQueryInput
  measuredTps: number
}

export interface CalibrationResult {
  hardwareKey: string
  /** measured ≈ factor × predicted. */
  factor: number
  count: number
  /** MAPE of the uncalibrated model on the measurements. */
  mapeBefore: number
  /** Leave-one-out MAPE of the calibrated model (each point corrected by a fit without it). */
  mapeAfter: number
  improvementPct: number
  points: { measuredTps: number; before: number; after: number }[]
}

/** Hardware identity for corrections: bandwidth and compute (what the predictor sees of it). */
export const hardwareKey = (q: Pick<ThroughputQuery, 'memBwGbs' | 'tflops'>): string => `${q.memBwGbs}GB/s|${q.tflops}TFLOPS`

const geoMean = (xs: readonly number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length)

export const CorrectionsSchema = z.record(z.string(), z.number().positive())

/** A model with per-hardware corrections; queries on other hardware pass through unchanged. */
export class CalibratedModel {
  readonly base: LearnedModel
  readonly corrections: Readonly<Record<string, number>>

  constructor(base: LearnedModel, corrections: Record<string, number>) {
    this.base = base
    this.corrections = parseWith(CorrectionsSchema, corrections, 'calibration corrections')
  }

  predict(input: ThroughputQueryInput): Prediction {
    const q = parseQuery(input)
    const p = this.base.predict(q)
    const factor = this.corrections[hardwareKey(q)]
    if (factor === undefined) return p
    const raw = p.rawTps * factor
    const bound = queryBound(q).boundTps
    return { ...p, rawTps: raw, predictedTps: Math.min(raw, bound), capped: raw > bound, model: `${p.model}+calibrated` }
  }
}

/** Fits the correction for one machine from 3 or more measurements on it. */
export function calibrate(model: LearnedModel, measurements: readonly LocalMeasurement[]): { result: CalibrationResult; model: CalibratedModel } {
  if (measurements.length < 3) {
    throw new KerneltuneError('INSUFFICIENT_DATA', `calibration needs at least 3 measurements on this machine, got ${measurements.length}`)
  }
  const qs = measurements.map((m) => parseQuery(m.query))
  const keys = new Set(qs.map(hardwareKey))
  if (keys.size !== 1) throw new KerneltuneError('INVALID_INPUT', `calibration measurements must all come from one hardware; got ${[...keys].join(', ')}`)
  for (const m of measurements) {
    if (!(m.measuredTps > 0)) throw new KerneltuneError('INVALID_INPUT', `measuredTps must be positive, got ${m.measuredTps}`)
  }
  // The correction applies to the unclamped output, so ratios are taken against rawTps.
  const raw = qs.map((q) => model.predict(q).rawTps)
  const before = qs.map((q) => model.predict(q).predictedTps)
  const ratio = measurements.map((m, i) => m.measuredTps / raw[i]!)
  const after = qs.map((q, i) => {
    const others = ratio.filter((_, j) => j !== i)
    return Math.min(raw[i]! * geoMean(others), queryBound(q).boundTps)
  })
  const mape = (p: number[]) => p.reduce((s, x, i) => s + Math.abs(x - measurements[i]!.measuredTps) / measurements[i]!.measuredTps, 0) / p.length
  const mapeBefore = mape(before)
  const mapeAfter = mape(after)
  const factor = geoMean(ratio)
  const key = hardwareKey(qs[0]!)
  return {
    result: {
      hardwareKey: key, factor, count: measurements.length, mapeBefore, mapeAfter,
      improvementPct: Math.max(((mapeBefore - mapeAfter) / mapeBefore) * 100, 0),
      points: measurements.map((m, i) => ({ measuredTps: m.measuredTps, before: before[i]!, after: after[i]! })),
    },
    model: new CalibratedModel(model, { [key]: factor }),
  }
}
