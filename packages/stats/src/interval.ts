/**
 * Confidence intervals for the location of one sample: the classic t interval of the mean, and
 * the Tukey–McLaughlin interval of the trimmed mean (winsorized spread, h − 1 degrees of freedom).
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { checkSamples, mean, standardDeviation, trimCount, trimmedMean, winsorizedVariance } from './descriptive.ts'
import { studentTQuantile } from './distributions.ts'

/** A two-sided confidence interval: its centre, ends, half-width and level. */
export interface Interval {
  readonly center: number
  readonly low: number
  readonly high: number
  readonly halfWidth: number
  readonly level: number
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw kerneltuneError('INVALID_INPUT', `confidence level must be in (0, 1), got ${level}`)
}

/** mean ± t_{(1+level)/2, n−1} · s/√n. Needs at least 2 values. */
export function confidenceInterval(xs: readonly number[], level = 0.95): Interval {
  checkLevel(level)
  checkSamples(xs, 2)
  const center = mean(xs)
  const halfWidth = (studentTQuantile((1 + level) / 2, xs.length - 1) * standardDeviation(xs)) / Math.sqrt(xs.length)
  return { center, low: center - halfWidth, high: center + halfWidth, halfWidth, level }
}

/**
 * Interval of the trimmed mean (Tukey and McLaughlin, 1963): trimmed mean ± t_{h−1} · s_w /
 * ((1 − 2γ)√n), where s_w is the winsorized standard deviation and h the count left after trimming.
 * With no values trimmed it equals `confidenceInterval`.
 */
export function trimmedConfidenceInterval(xs: readonly number[], proportion = 0.1, level = 0.95): Interval {
  checkLevel(level)
  const { center, standardError, df } = trimmedMeanSpread(xs, proportion)
  const halfWidth = studentTQuantile((1 + level) / 2, df) * standardError
  return { center, low: center - halfWidth, high: center + halfWidth, halfWidth, level }
}

/**
 * The trimmed mean with its Tukey–McLaughlin standard error s_w / ((1 − 2g/n)√n) and h − 1 degrees
 * of freedom, shared by the interval above and `trimmedMeanTest`. The realised trim fraction g/n
 * is used, so the formula matches the values actually cut.
 */
export function trimmedMeanSpread(xs: readonly number[], proportion: number): { center: number; standardError: number; df: number } {
  checkSamples(xs, 2)
  const n = xs.length
  const g = trimCount(n, proportion)
  const h = n - 2 * g
  if (h < 2) throw kerneltuneError('INSUFFICIENT_DATA', `trimmed mean needs 2 values left after trimming, got ${h}`)
  const standardError = Math.sqrt(winsorizedVariance(xs, proportion)) / ((1 - (2 * g) / n) * Math.sqrt(n))
  return { center: trimmedMean(xs, proportion), standardError, df: h - 1 }
}
