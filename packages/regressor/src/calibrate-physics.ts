/**
 * Calibration of the physics model on one machine: multipliers on its work time (bytes and FLOPs),
 * one per weight format around a shared one, and on its fixed overhead time (per layer and per
 * step), fitted on log time with the pretrained model as the prior. Per format, because a machine's
 * kernels differ by format (on x86 llama.cpp repacks Q4_0 for its own matrix kernel while Q8_0 takes
 * the generic dot products: on this repo's machine Q4_0 prefilled twice as fast as Q8_0), which one
 * shared factor can only average.
 */
import { dampedStep, type DampedState } from './damped-step.ts'
import type { LearnedModel } from './learned.ts'
import { physicsBreakdown, type PhysicsState } from './physics.ts'
import { OVERHEAD_TERMS } from './physics-terms.ts'
import type { ThroughputQuery } from './query.ts'

/**
 * Prior on the log of each multiplier, the format offsets included: a multiplier the measurements
 * barely see (the overhead of prefill, a few percent of its time) stays near 1, a format's factor
 * near the shared one. The standard deviation is not fixed: `calibrate` tries these (a factor of
 * 1.6, 2.7 and 7.4 either way being unremarkable) and one factor on the whole time, and keeps the
 * fit whose leave-one-out error over the calibration points is lowest; the held-out sizes of
 * predict-vs-measure take no part.
 */
export const CALIBRATION_PRIOR_SDS = [0.5, 1, 2] as const
/**
 * Standard deviation of one measurement's log time (10%: the repeat-to-repeat spread of a run on a
 * shared machine), which weighs the measurements against the prior. Fixed, not fitted.
 */
export const CALIBRATION_NOISE_SD = 0.1

export interface Split {
  tokens: number
  work: number
  overhead: number
  format: string
}

/** A physics prediction split in work time (bytes and FLOPs) and fixed overhead time, per step. */
export function physicsSplit(model: LearnedModel, q: ThroughputQuery): Split {
  const { tokens, seconds } = physicsBreakdown(model.json.physics as PhysicsState, q)
  let work = 0
  let overhead = 0
  for (const [term, t] of Object.entries(seconds)) OVERHEAD_TERMS.has(term) ? (overhead += t) : (work += t)
  return { tokens, work, overhead, format: q.quant }
}

/** Multipliers of the times (1 = the pretrained model): work per format, else shared; overhead. */
export interface Multipliers {
  work: number
  overhead: number
  byFormat: Record<string, number>
}

export const workOf = (m: Multipliers, format: string): number => m.byFormat[format] ?? m.work

/**
 * Minimises Σ log(predicted time ÷ measured time)² ÷ NOISE² + Σ θ² ÷ SD² over θ = (log shared work,
 * log overhead, format offsets), the posterior mode, by damped Gauss-Newton from θ = 0 (deterministic). Offsets only for
 * formats with two or more points: a format seen once keeps the shared factor.
 */
export function fitMultipliers(splits: readonly Split[], times: readonly number[], priorSd = 1): Multipliers {
  const counts = new Map<string, number>()
  for (const s of splits) counts.set(s.format, (counts.get(s.format) ?? 0) + 1)
  const formats = [...counts].filter(([, n]) => n >= 2).map(([f]) => f)
  // A single format needs no offset: the shared factor is its factor.
  const offsets = formats.length > 1 ? formats : []
  const P = 2 + offsets.length
  const tau = (CALIBRATION_NOISE_SD / priorSd) ** 2 // the prior's weight in units of one measurement
  const theta = new Float64Array(P)
  const parts = (th: Float64Array, s: Split) => {
    const k = offsets.indexOf(s.format)
    const w = Math.exp(th[0]! + (k >= 0 ? th[2 + k]! : 0)) * s.work
    return { w, o: Math.exp(th[1]!) * s.overhead, k }
  }
  const loss = (th: Float64Array) => splits.reduce((acc, s, i) => {
    const { w, o } = parts(th, s)
    return acc + Math.log((w + o) / times[i]!) ** 2
  }, 0) + tau * th.reduce((a, x) => a + x * x, 0)
  const state: DampedState = { current: loss(theta), damping: 1e-3 }
  for (let it = 0; it < 200; it++) {
    const g = Float64Array.from(theta, (x) => tau * x)
    const H = Array.from({ length: P }, (_, j) => Array.from({ length: P }, (_, l) => (j === l ? tau : 0)))
    splits.forEach((s, i) => {
      const { w, o, k } = parts(theta, s)
      const r = Math.log((w + o) / times[i]!)
      const d = new Array<number>(P).fill(0)
      d[0] = w / (w + o)
      d[1] = o / (w + o)
      if (k >= 0) d[2 + k] = w / (w + o)
      for (let j = 0; j < P; j++) {
        g[j]! += r * d[j]!
        for (let l = 0; l < P; l++) H[j]![l]! += d[j]! * d[l]!
      }
    })
    for (let j = 0; j < P; j++) H[j]![j]! *= 1 + state.damping
    const gain = dampedStep(theta, H, g, loss, state)
    if (gain === undefined || (gain > 0 && gain < 1e-12)) break
  }
  const byFormat: Record<string, number> = {}
  offsets.forEach((f, k) => (byFormat[f] = Math.exp(theta[0]! + theta[2 + k]!)))
  return { work: Math.exp(theta[0]!), overhead: Math.exp(theta[1]!), byFormat }
}

/** One multiplier on the whole time (keeps the overhead's share): the least-squares relative scale. */
export function fitOneFactor(splits: readonly Split[], times: readonly number[], _priorSd?: number): Multipliers {
  const all = splits.map((p, i) => (p.work + p.overhead) / times[i]!)
  const k = all.reduce((x, y) => x + y, 0) / all.reduce((x, y) => x + y * y, 0)
  return { work: k, overhead: k, byFormat: {} }
}
