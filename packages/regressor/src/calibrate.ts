/**
 * Per-hardware calibration from a handful of measurements on the user's machine: a
 * multiplicative correction, the geometric mean of measured ÷ predicted (a shift in log space),
 * fitted only on what was measured. MAPE before and after is reported on held-out points
 * (leave-one-out: each point is predicted by a correction fitted on the others), so the
 * improvement is not measured on the points that produced it. The corrected prediction is still
 * clamped by the roofline bound. The physics model gets multipliers on its work time (per weight
 * format) and on its overhead time instead of one factor (calibrate-physics.ts).
 */
import { z } from 'zod'
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { parseQuery, queryBound, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'
import type { IntervalPrediction, LearnedModel } from './learned.ts'
import { CALIBRATION_PRIOR_SDS, fitMultipliers, fitOneFactor, physicsSplit, workOf, type Multipliers } from './calibrate-physics.ts'

export interface LocalMeasurement {
  query: ThroughputQueryInput
  measuredTps: number
}

export interface CalibrationResult {
  hardwareKey: string
  /**
   * measured ≈ factor × predicted (ridge/forest). For the physics model: the factor on the
   * bandwidth and compute times (time ≈ their sum ÷ factor + overheads × overheadFactor).
   */
  factor: number
  /** Physics model only: the multiplier of the per-layer and per-step overhead times. */
  overheadFactor?: number
  /** Physics model only: `factor` per weight format, where the measurements held 2+ points of 2+ formats. */
  formatFactors?: Record<string, number>
  /** Every correction the calibrated model carries (CalibratedModel's `corrections`), keyed as stored. */
  corrections: Record<string, number>
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
/** The key of a physics model's overhead correction, next to the hardware's main factor. */
const overheadKey = (key: string) => `${key}|overhead`
/** The key of a physics model's work factor for one weight format. */
const formatKey = (key: string, quant: string) => `${key}|quant:${quant}`
const geoMean = (xs: readonly number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length)

export const CorrectionsSchema: z.ZodRecord<z.ZodString, z.ZodNumber> = z.record(z.string(), z.number().positive())

/** A model with per-hardware corrections; queries on other hardware pass through unchanged. */
export class CalibratedModel {
  readonly base: LearnedModel
  readonly corrections: Readonly<Record<string, number>>

  constructor(base: LearnedModel, corrections: Record<string, number>) {
    this.base = base
    this.corrections = parseWith(CorrectionsSchema, corrections, 'calibration corrections')
  }

  predict(input: ThroughputQueryInput): IntervalPrediction {
    const q = parseQuery(input)
    const p = this.base.predict(q)
    const key = hardwareKey(q)
    const factor = this.corrections[key]
    if (factor === undefined) return p
    const over = this.corrections[overheadKey(key)]
    let raw = p.rawTps * factor
    if (over !== undefined && this.base.kind === 'physics') {
      const s = physicsSplit(this.base, q)
      raw = s.tokens / (s.work / (this.corrections[formatKey(key, q.quant)] ?? factor) + s.overhead * over)
    }
    const bound = queryBound(q).boundTps
    const predictedTps = Math.min(raw, bound)
    // The interval keeps its relative shape around the corrected prediction. It still describes the
    // pretrained model's error on unseen hardware, so after calibration it is conservative.
    const interval = p.interval && { ...p.interval, low: (p.interval.low / p.predictedTps) * predictedTps, high: Math.min((p.interval.high / p.predictedTps) * predictedTps, bound) }
    // Measurements of this hardware now stand behind the prediction: it no longer extrapolates.
    const { extrapolation: _measuredHere, ...rest } = p
    return { ...rest, rawTps: raw, predictedTps, capped: raw > bound, model: `${p.model}+calibrated`, ...(interval ? { interval } : {}) }
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
  if (model.kind === 'physics') return calibratePhysics(model, measurements, qs)
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
      hardwareKey: key, factor, corrections: { [key]: factor }, count: measurements.length, mapeBefore, mapeAfter,
      improvementPct: Math.max(((mapeBefore - mapeAfter) / mapeBefore) * 100, 0),
      points: measurements.map((m, i) => ({ measuredTps: m.measuredTps, before: before[i]!, after: after[i]! })),
    },
    model: new CalibratedModel(model, { [key]: factor }),
  }
}

/** The physics model's calibration: work (per format) and overhead multipliers, reported like `calibrate`. */
function calibratePhysics(model: LearnedModel, measurements: readonly LocalMeasurement[], qs: readonly ThroughputQuery[]): { result: CalibrationResult; model: CalibratedModel } {
  const splits = qs.map((q) => physicsSplit(model, q))
  const times = measurements.map((m, i) => splits[i]!.tokens / m.measuredTps)
  const bounds = qs.map((q) => queryBound(q).boundTps)
  const predictWith = (i: number, f: Multipliers) => Math.min(splits[i]!.tokens / (splits[i]!.work * workOf(f, splits[i]!.format) + splits[i]!.overhead * f.overhead), bounds[i]!)
  const before = qs.map((q) => model.predict(q).predictedTps)
  const mape = (p: number[]) => p.reduce((s, x, i) => s + Math.abs(x - measurements[i]!.measuredTps) / measurements[i]!.measuredTps, 0) / p.length
  // Leave-one-out: each point predicted by the multipliers fitted on the others only. Several
  // multipliers can chase the noise of a few points, so the fit kept is the one (one factor on the
  // whole time, or the multipliers under each prior width) whose leave-one-out error is lowest:
  // chosen on the measurements alone, first in this order on a tie.
  type Fitter = (s: typeof splits, t: number[]) => Multipliers
  const fits: Fitter[] = [fitOneFactor, ...CALIBRATION_PRIOR_SDS.map((sd): Fitter => (s, t) => fitMultipliers(s, t, sd))]
  const loo = (fitter: Fitter) => qs.map((_, i) => {
    const keep = (_: unknown, j: number) => j !== i
    return predictWith(i, fitter(splits.filter(keep), times.filter(keep)))
  })
  const best = fits.map((fit) => ({ fit, after: loo(fit) })).reduce((a, b) => (mape(b.after) < mape(a.after) ? b : a))
  const after = best.after
  const fit = best.fit(splits, times)
  const key = hardwareKey(qs[0]!)
  const mapeBefore = mape(before)
  const mapeAfter = mape(after)
  const formatFactors = Object.fromEntries(Object.entries(fit.byFormat).map(([f, w]) => [f, 1 / w]))
  const corrections = { [key]: 1 / fit.work, [overheadKey(key)]: fit.overhead, ...Object.fromEntries(Object.entries(formatFactors).map(([f, v]) => [formatKey(key, f), v])) }
  return {
    result: {
      hardwareKey: key, factor: 1 / fit.work, overheadFactor: fit.overhead, ...(Object.keys(formatFactors).length ? { formatFactors } : {}), corrections,
      count: measurements.length, mapeBefore, mapeAfter, improvementPct: Math.max(((mapeBefore - mapeAfter) / mapeBefore) * 100, 0),
      points: measurements.map((m, i) => ({ measuredTps: m.measuredTps, before: before[i]!, after: after[i]! })),
    },
    model: new CalibratedModel(model, corrections),
  }
}
