/**
 * The early-termination rule: stop measuring once the leader's confidence interval is narrower
 * than the noise floor and the leader is unambiguous (its interval overlaps no other candidate's).
 * Non-overlapping intervals are a stricter condition than a significant pairwise test, which is
 * the safe side for a rule that ends measurement.
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { trimmedConfidenceInterval } from './interval.ts'
import type { Interval } from './interval.ts'

export interface EarlyStopCandidate {
  readonly id: string
  readonly samples: readonly number[]
}

export interface EarlyStopOptions {
  readonly higherIsBetter: boolean
  /**
   * The widest interval still considered tight, relative to the leader's trimmed mean (0.02 =
   * the full interval spans at most 2% of the value). Hardware-specific: set it from repeated
   * measurements of one configuration on the target device.
   */
  readonly noiseFloor: number
  /** Confidence level of the intervals; default 0.95. */
  readonly level?: number
  /** Proportion trimmed from each end; default 0.1. */
  readonly trim?: number
  /** No stop before every candidate has this many samples; default 3. */
  readonly minSamples?: number
}

export interface EarlyStopDecision {
  readonly stop: boolean
  readonly leader?: string
  readonly reasons: readonly string[]
  /** Interval of each candidate's trimmed mean, by id (only when every candidate had enough samples). */
  readonly intervals: Readonly<Record<string, Interval>>
}

export function shouldStopEarly(candidates: readonly EarlyStopCandidate[], options: EarlyStopOptions): EarlyStopDecision {
  const { higherIsBetter, noiseFloor } = options
  const level = options.level ?? 0.95
  const trim = options.trim ?? 0.1
  const minSamples = Math.max(2, options.minSamples ?? 3)
  if (!(noiseFloor > 0)) throw kerneltuneError('INVALID_INPUT', `noiseFloor must be > 0 (a fraction such as 0.02), got ${noiseFloor}`)
  if (candidates.length === 0) return { stop: false, reasons: ['no candidates'], intervals: {} }
  const short = candidates.filter((c) => c.samples.length < minSamples)
  if (short.length > 0) {
    return { stop: false, reasons: short.map((c) => `${c.id}: ${c.samples.length} of ${minSamples} samples`), intervals: {} }
  }
  const intervals: Record<string, Interval> = {}
  for (const c of candidates) intervals[c.id] = trimmedConfidenceInterval(c.samples, trim, level)
  const ranked = [...candidates].sort((a, b) => {
    const d = intervals[a.id]!.center - intervals[b.id]!.center
    return higherIsBetter ? -d : d
  })
  const leader = ranked[0]!
  const li = intervals[leader.id]!
  const reasons: string[] = []
  const width = (li.high - li.low) / Math.abs(li.center)
  const tight = li.center !== 0 && width < noiseFloor
  reasons.push(
    `${leader.id}: ${(level * 100).toFixed(0)}% interval spans ${(width * 100).toFixed(2)}% of its value ` +
      `(${tight ? 'below' : 'not below'} the ${(noiseFloor * 100).toFixed(2)}% noise floor)`,
  )
  const overlapping = ranked.slice(1).filter((c) => {
    const ci = intervals[c.id]!
    return ci.low <= li.high && li.low <= ci.high
  })
  if (overlapping.length > 0) reasons.push(`${leader.id}: interval overlaps ${overlapping.map((c) => c.id).join(', ')}; the winner is ambiguous`)
  else if (ranked.length > 1) reasons.push(`${leader.id}: interval overlaps no other candidate`)
  return { stop: tight && overlapping.length === 0, leader: leader.id, reasons, intervals }
}
