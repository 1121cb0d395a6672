/**
 * A speed-up from paired rounds: in round i the baseline took b_i and the candidate c_i (measured
 * close together, so that drift and load hit both alike). The estimate is the geometric mean of
 * the per-round ratios b_i / c_i and the interval is the paired t interval of the mean log ratio,
 * mapped back with exp. Logs make the ratio symmetric (2× faster and 2× slower are ±log 2) and
 * timing noise, which is multiplicative, roughly normal.
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { checkSamples, median } from './descriptive.ts'
import { confidenceInterval } from './interval.ts'

export interface RatioInterval {
  /** exp(mean log(b_i / c_i)): the geometric mean of the per-round ratios (> 1: candidate faster). */
  readonly ratio: number
  readonly low: number
  readonly high: number
  readonly level: number
  /** Rounds (pairs) used. */
  readonly n: number
  /** Median baseline and candidate values over the rounds, for scale. */
  readonly baselineMedian: number
  readonly candidateMedian: number
}

/** Needs at least 2 rounds of positive, finite values; `baseline[i]` and `candidate[i]` are one round. */
export function pairedRatioInterval(baseline: readonly number[], candidate: readonly number[], level = 0.95): RatioInterval {
  if (baseline.length !== candidate.length) {
    throw kerneltuneError('INVALID_INPUT', `paired rounds need as many baseline as candidate values, got ${baseline.length} and ${candidate.length}`)
  }
  checkSamples(baseline, 2, 'baseline')
  checkSamples(candidate, 2, 'candidate')
  const logs = baseline.map((b, i) => {
    const c = candidate[i]!
    if (!(b > 0 && c > 0)) throw kerneltuneError('INVALID_INPUT', `round ${i}: a ratio needs positive values, got ${b} and ${c}`)
    return Math.log(b / c)
  })
  const ci = confidenceInterval(logs, level)
  return {
    ratio: Math.exp(ci.center),
    low: Math.exp(ci.low),
    high: Math.exp(ci.high),
    level,
    n: logs.length,
    baselineMedian: median(baseline),
    candidateMedian: median(candidate),
  }
}
