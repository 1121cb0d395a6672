/**
 * Per-hardware calibration from a handful of measurements on the user's machine: a
 * multiplicative correction, the geometric mean of measured ÷ predicted (a shift in log space),
 * fitted only on what was measured. MAPE before and after is reported on held-out points
 * (leave-one-out: each point is predicted by a correction fitted on the others), so the
 * improvement is not measured on the points that produced it. The corrected prediction is still
 * clamped by the roofline bound.
 */
import { z } from 'zod'
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { parseQuery, queryBound, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'
import type { IntervalPrediction, LearnedModel } from './learned.ts'
import { physicsBreakdown, type PhysicsState } from './physics.ts'

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
const OVERHEAD_TERMS = new Set(['layer', 'step'])

/** A physics prediction split in work time (bytes and FLOPs) and fixed overhead time, per step. */
function physicsSplit(model: LearnedModel, q: ThroughputQuery): { tokens: number; work: number; overhead: number } {
  const { tokens, seconds } = physicsBreakdown(model.json.physics as PhysicsState, q)
  let work = 0
  let overhead = 0
  for (const [term, t] of Object.entries(seconds)) OVERHEAD_TERMS.has(term) ? (overhead += t) : (work += t)
  return { tokens, work, overhead }
}

/**
 * Two positive multipliers (on the work time and on the overhead time) that minimise the
 * squared relative time error: a small model is mostly overhead and a large one mostly bytes, so
 * three sizes pin both down where one factor would average them. Falls back to a single factor on
 * the work time when the fit puts the overhead multiplier at zero or below.
 */
function fitTwoTerms(splits: readonly { work: number; overhead: number }[], times: readonly number[]): { a: number; b: number } {
  let s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0
  splits.forEach((p, i) => {
    const x1 = p.work / times[i]!
    const x2 = p.overhead / times[i]!
    s11 += x1 * x1; s12 += x1 * x2; s22 += x2 * x2; r1 += x1; r2 += x2
  })
  const det = s11 * s22 - s12 * s12
  if (det > 1e-12 * s11 * s22) {
    const a = (r1 * s22 - r2 * s12) / det
    const b = (s11 * r2 - s12 * r1) / det
    if (a > 0 && b > 0) return { a, b }
  }
  return fitOneFactor(splits, times)
}

/** One multiplier on the whole time (keeps the overhead's share): the least-squares relative scale. */
function fitOneFactor(splits: readonly { work: number; overhead: number }[], times: readonly number[]): { a: number; b: number } {
  const all = splits.map((p, i) => (p.work + p.overhead) / times[i]!)
  const k = all.reduce((x, y) => x + y, 0) / all.reduce((x, y) => x + y * y, 0)
  return { a: k, b: k }
}

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
      raw = s.tokens / (s.work / factor + s.overhead * over)
    }
    const bound = queryBound(q).boundTps
    const predictedTps = Math.min(raw, bound)
    // The interval keeps its relative shape around the corrected prediction. It still describes the
    // pretrained model's error on unseen hardware, so after calibration it is conservative.
    const interval = p.interval && { ...p.interval, low: (p.interval.low / p.predictedTps) * predictedTps, high: Math.min((p.interval.high / p.predictedTps) * predictedTps, bound) }
    return { ...p, rawTps: raw, predictedTps, capped: raw > bound, model: `${p.model}+calibrated`, ...(interval ? { interval } : {}) }
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
      hardwareKey: key, factor, count: measurements.length, mapeBefore, mapeAfter,
      improvementPct: Math.max(((mapeBefore - mapeAfter) / mapeBefore) * 100, 0),
      points: measurements.map((m, i) => ({ measuredTps: m.measuredTps, before: before[i]!, after: after[i]! })),
    },
    model: new CalibratedModel(model, { [key]: factor }),
  }
}

/** The physics model's calibration: work and overhead multipliers, reported like `calibrate`. */
function calibratePhysics(model: LearnedModel, measurements: readonly LocalMeasurement[], qs: readonly ThroughputQuery[]): { result: CalibrationResult; model: CalibratedModel } {
  const splits = qs.map((q) => physicsSplit(model, q))
  const times = measurements.map((m, i) => splits[i]!.tokens / m.measuredTps)
  const bounds = qs.map((q) => queryBound(q).boundTps)
  const predictWith = (i: number, f: { a: number; b: number }) => Math.min(splits[i]!.tokens / (splits[i]!.work * f.a + splits[i]!.overhead * f.b), bounds[i]!)
  const before = qs.map((q) => model.predict(q).predictedTps)
  const mape = (p: number[]) => p.reduce((s, x, i) => s + Math.abs(x - measurements[i]!.measuredTps) / measurements[i]!.measuredTps, 0) / p.length
  // Leave-one-out: each point predicted by the multipliers fitted on the others only. Two
  // multipliers can chase the noise of a few points, so one factor on the whole time is kept
  // instead when its leave-one-out error is lower (chosen on the measurements alone).
  const loo = (fitter: typeof fitTwoTerms) => qs.map((_, i) => {
    const keep = (_: unknown, j: number) => j !== i
    return predictWith(i, fitter(splits.filter(keep), times.filter(keep)))
  })
  const two = loo(fitTwoTerms)
  const one = loo(fitOneFactor)
  const useTwo = mape(two) <= mape(one)
  const after = useTwo ? two : one
  const fit = (useTwo ? fitTwoTerms : fitOneFactor)(splits, times)
  const key = hardwareKey(qs[0]!)
  const mapeBefore = mape(before)
  const mapeAfter = mape(after)
  return {
    result: {
      hardwareKey: key, factor: 1 / fit.a, overheadFactor: fit.b, count: measurements.length, mapeBefore, mapeAfter,
      improvementPct: Math.max(((mapeBefore - mapeAfter) / mapeBefore) * 100, 0),
      points: measurements.map((m, i) => ({ measuredTps: m.measuredTps, before: before[i]!, after: after[i]! })),
    },
    model: new CalibratedModel(model, { [key]: 1 / fit.a, [overheadKey(key)]: fit.b }),
  }
}
