/**
 * The paired comparison an interleaved sweep makes: in round r the candidate and the baseline were
 * measured close together in time, so the ratio candidate_r / baseline_r cancels whatever load
 * the machine had in that round. The test is a one-sample t-test on the log ratios (the geometric
 * mean ratio is the estimate), which is what removes drift that an unpaired Welch test counts as
 * noise.
 */
import { studentTQuantile, studentTTwoSided } from '@kerneltune/stats'

export interface PairedComparison {
  readonly n: number
  /** Geometric mean of candidate / baseline, minus 1, signed so that positive is better. */
  readonly improvement: number
  /** 95% (1 - alpha) interval of the improvement. */
  readonly interval: { readonly low: number; readonly high: number }
  readonly t: number
  readonly pValue: number
  readonly verdict: 'better' | 'worse' | 'indistinguishable'
}

/** Pairs are (candidate, baseline) values of one round; rounds where either is missing are left out by the caller. */
export function pairedComparison(pairs: readonly (readonly [number, number])[], higherIsBetter: boolean, alpha = 0.05): PairedComparison | undefined {
  const d = pairs.filter(([a, b]) => a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b)).map(([a, b]) => (higherIsBetter ? 1 : -1) * Math.log(a / b))
  const n = d.length
  if (n < 2) return undefined
  const mean = d.reduce((x, y) => x + y, 0) / n
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1))
  const se = sd / Math.sqrt(n)
  const t = se === 0 ? (mean === 0 ? 0 : Math.sign(mean) * Infinity) : mean / se
  const pValue = Number.isFinite(t) ? studentTTwoSided(t, n - 1) : 0
  const q = studentTQuantile(1 - alpha / 2, n - 1)
  const significant = pValue < alpha && mean !== 0
  return {
    n,
    improvement: Math.expm1(mean),
    interval: { low: Math.expm1(mean - q * se), high: Math.expm1(mean + q * se) },
    t,
    pValue,
    verdict: !significant ? 'indistinguishable' : mean > 0 ? 'better' : 'worse',
  }
}
