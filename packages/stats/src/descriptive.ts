/**
 * Descriptive statistics over timing samples. Every function checks its input, because a NaN
 * from a failed repetition would otherwise spread silently into every later comparison.
 */
import { kerneltuneError } from '@kerneltune/core/errors'

/** Throws INVALID_INPUT when a sample is not a finite number, and INSUFFICIENT_DATA below `min`. */
export function checkSamples(xs: readonly number[], min = 1, what = 'samples'): void {
  if (xs.length < min) {
    throw kerneltuneError('INSUFFICIENT_DATA', `${what}: need at least ${min} value(s), got ${xs.length}; measure more repetitions`)
  }
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(xs[i])) {
      throw kerneltuneError('INVALID_INPUT', `${what}: value ${i} is ${xs[i]}; every sample must be a finite number`)
    }
  }
}

export function mean(xs: readonly number[]): number {
  checkSamples(xs, 1)
  // Shifted by the first value so that large, close values (timestamps, ns timings) keep precision.
  const shift = xs[0]!
  let sum = 0
  for (const x of xs) sum += x - shift
  return shift + sum / xs.length
}

/** Sample variance (n − 1 in the denominator), computed with Welford's update for stability. */
export function variance(xs: readonly number[]): number {
  checkSamples(xs, 2)
  let m = 0
  let s = 0
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!
    const d = x - m
    m += d / (i + 1)
    s += d * (x - m)
  }
  return Math.max(0, s / (xs.length - 1))
}

export function standardDeviation(xs: readonly number[]): number {
  return Math.sqrt(variance(xs))
}

export function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b)
}

/** How many values are cut from each end: floor(proportion × n), as scipy's `trim_mean` does. */
export function trimCount(n: number, proportion: number): number {
  if (!(proportion >= 0 && proportion < 0.5)) {
    throw kerneltuneError('INVALID_INPUT', `trim proportion must be in [0, 0.5), got ${proportion}`)
  }
  return Math.floor(proportion * n + 1e-9)
}

/** The sorted sample with floor(proportion × n) values removed from each end. */
export function trim(xs: readonly number[], proportion = 0.1): number[] {
  checkSamples(xs, 1)
  const g = trimCount(xs.length, proportion)
  return sorted(xs).slice(g, xs.length - g)
}

/**
 * Mean after cutting `proportion` of the values from each end (10% by default). With fewer than
 * 10 samples nothing is cut at 10%, so the result equals the plain mean.
 */
export function trimmedMean(xs: readonly number[], proportion = 0.1): number {
  return mean(trim(xs, proportion))
}

/**
 * Winsorized sample variance: the g lowest values are replaced by the (g+1)-th, the g highest by
 * the (n−g)-th. Yuen's test uses it as the spread that goes with a trimmed mean.
 */
export function winsorizedVariance(xs: readonly number[], proportion = 0.1): number {
  checkSamples(xs, 2)
  const s = sorted(xs)
  const g = trimCount(s.length, proportion)
  const lo = s[g]!
  const hi = s[s.length - 1 - g]!
  return variance(s.map((x) => (x < lo ? lo : x > hi ? hi : x)))
}

/**
 * The p-th percentile (p in [0, 100]) with linear interpolation between closest ranks (Hyndman
 * and Fan type 7, the default of numpy and R).
 */
export function percentile(xs: readonly number[], p: number): number {
  checkSamples(xs, 1)
  if (!(p >= 0 && p <= 100)) throw kerneltuneError('INVALID_INPUT', `percentile must be in [0, 100], got ${p}`)
  const s = sorted(xs)
  const h = ((s.length - 1) * p) / 100
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, s.length - 1)
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!)
}

export function median(xs: readonly number[]): number {
  return percentile(xs, 50)
}

export interface Summary {
  readonly n: number
  readonly mean: number
  readonly trimmedMean: number
  /** Sample standard deviation; 0 for a single value. */
  readonly sd: number
  readonly min: number
  readonly max: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
}

/** Count, mean, trimmed mean, spread and the p50/p95/p99 percentiles of a sample. */
export function summarize(xs: readonly number[], trimProportion = 0.1): Summary {
  checkSamples(xs, 1)
  const s = sorted(xs)
  return {
    n: s.length,
    mean: mean(s),
    trimmedMean: trimmedMean(s, trimProportion),
    sd: s.length > 1 ? standardDeviation(s) : 0,
    min: s[0]!,
    max: s[s.length - 1]!,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
  }
}
