/**
 * Two-sample comparisons that do not assume equal variances: Welch's t-test on means and Yuen's
 * test on trimmed means (Welch's test with winsorized variances). Yuen's test with no trimming is
 * exactly Welch's test, which the tests check.
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { checkSamples, mean, trimCount, trimmedMean, variance, winsorizedVariance } from './descriptive.ts'
import { studentTQuantile, studentTTwoSided } from './distributions.ts'
import { trimmedMeanSpread, type Interval } from './interval.ts'

export interface TTestResult {
  /** The t statistic of a − b. */
  readonly t: number
  /** Welch–Satterthwaite degrees of freedom (not necessarily whole). */
  readonly df: number
  /** Exact two-sided p-value from the Student t distribution. */
  readonly pValue: number
  /** Difference of the (trimmed) means, a − b. */
  readonly difference: number
  readonly standardError: number
}

// Shared by Welch and Yuen: d = squared standard errors, nu = their degrees of freedom.
function fromParts(difference: number, da: number, db: number, nua: number, nub: number): TTestResult {
  const se2 = da + db
  if (se2 === 0) {
    // Both samples constant: equal means are identical, different means differ with certainty.
    const df = nua + nub
    return { t: difference === 0 ? 0 : difference > 0 ? Infinity : -Infinity, df, pValue: difference === 0 ? 1 : 0, difference, standardError: 0 }
  }
  const standardError = Math.sqrt(se2)
  const t = difference / standardError
  // Welch–Satterthwaite, written with the shares of the variance so tiny variances cannot underflow.
  const wa = da / se2
  const wb = db / se2
  const df = 1 / ((wa * wa) / nua + (wb * wb) / nub)
  return { t, df, pValue: studentTTwoSided(t, df), difference, standardError }
}

/** Welch's unequal-variance t-test of mean(a) − mean(b); each sample needs at least 2 values. */
export function welchTTest(a: readonly number[], b: readonly number[]): TTestResult {
  checkSamples(a, 2, 'first sample')
  checkSamples(b, 2, 'second sample')
  const da = variance(a) / a.length
  const db = variance(b) / b.length
  return fromParts(mean(a) - mean(b), da, db, a.length - 1, b.length - 1)
}

/**
 * Yuen's test of trimmed(a) − trimmed(b), cutting `proportion` from each end. Each sample needs at
 * least 2 values left after trimming.
 */
export function yuenTTest(a: readonly number[], b: readonly number[], proportion = 0.1): TTestResult {
  const parts = [a, b].map((xs, i) => {
    const what = i === 0 ? 'first sample' : 'second sample'
    checkSamples(xs, 2, what)
    const h = xs.length - 2 * trimCount(xs.length, proportion)
    if (h < 2) throw kerneltuneError('INSUFFICIENT_DATA', `${what}: ${h} value(s) left after trimming; Yuen's test needs 2`)
    return { d: ((xs.length - 1) * winsorizedVariance(xs, proportion)) / (h * (h - 1)), nu: h - 1 }
  })
  const [pa, pb] = parts as [{ d: number; nu: number }, { d: number; nu: number }]
  return fromParts(trimmedMean(a, proportion) - trimmedMean(b, proportion), pa.d, pb.d, pa.nu, pb.nu)
}

/**
 * One-sample test of a trimmed mean against 0 (Tukey–McLaughlin; Yuen's test for one sample): the
 * trimmed mean over s_w / ((1 − 2g/n)√n), s_w the winsorized standard deviation, with h − 1 degrees
 * of freedom (h values left after trimming). For paired differences — log ratios of an arm and the
 * defaults measured in the same round — it is the paired test that a few wild values cannot sway:
 * on a loaded CPU a single measurement can be several times slower than its neighbours, and one
 * such value inflates the plain t-test's variance enough to hide a 40% effect. With nothing
 * trimmed (n < 1/proportion) it is the one-sample t-test.
 */
export function trimmedMeanTest(xs: readonly number[], proportion = 0.2): TTestResult {
  const { center: difference, standardError, df } = trimmedMeanSpread(xs, proportion)
  if (standardError === 0) return { t: difference === 0 ? 0 : difference > 0 ? Infinity : -Infinity, df, pValue: difference === 0 ? 1 : 0, difference, standardError }
  const t = difference / standardError
  return { t, df, pValue: studentTTwoSided(t, df), difference, standardError }
}

/** The `level` confidence interval of the difference that a t-test result describes. */
export function differenceInterval(test: TTestResult, level = 0.95): Interval {
  const halfWidth = test.standardError === 0 ? 0 : studentTQuantile(1 - (1 - level) / 2, test.df) * test.standardError
  return { center: test.difference, low: test.difference - halfWidth, high: test.difference + halfWidth, halfWidth, level }
}
