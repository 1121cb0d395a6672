/**
 * The sign-flip (randomization) test of paired differences. If the two arms of a pair are
 * exchangeable — the same settings measured twice, or a setting with no effect, each visit's
 * position in the round drawn at random — every difference is as likely to have come out with the
 * opposite sign. So the statistic of the observed differences is compared with its value under
 * every pattern of signs: all 2^n up to `maxExact` values (14 by default), else a seeded random
 * sample of `resamples` patterns. Up to maxExact the p-value is exact: the share of all 2^n
 * patterns, for any noise distribution that is symmetric under the null, which is what a loaded
 * machine's wild measurements need (no normality, no large-sample approximation). Past it the
 * p-value is resampled: (extreme + 1)/(resamples + 1), still a valid test (Phipson and Smyth) but
 * an estimate of the exact one, with a floor of 1/(resamples + 1). The result says which
 * (`pMethod`, `patterns`, and `resamples`/`pFloor` when resampled); `describePMethod` words it for
 * printing. Its price is granularity: with n differences the smallest two-sided p-value is 2/2^n,
 * so 5 or fewer can never reach 0.05.
 *
 * @example
 * ```ts
 * const r = signFlipTest([0.12, 0.2, 0.15, 0.09, 0.3, 0.11, 0.18, 0.14], (d) => trimmedMean(d, 0.2))
 * console.log(r.pValue) // 4/256: all signs alike, and the trimmed 0.09 flipped either way
 * ```
 */
import { kerneltuneError, mulberry32 } from '@kerneltune/core/lite'
import { checkSamples, trimCount } from './descriptive.ts'

export interface SignFlipOptions {
  /** Enumerate every pattern up to this many differences (2^n patterns); default 14 (16384). */
  readonly maxExact?: number
  /** Random patterns beyond maxExact; default 20000. */
  readonly resamples?: number
  /** Seed of the random patterns; default 1 (the same data give the same p-value). */
  readonly seed?: number
}

/**
 * How a sign-flip p-value was computed. 'exact': over all `patterns` = 2^n sign patterns.
 * 'resampled': over `resamples` seeded random patterns, p = (extreme + 1)/(resamples + 1), so no
 * p-value is below `pFloor` = 1/(resamples + 1).
 */
export type SignFlipMethod =
  | { readonly pMethod: 'exact'; readonly patterns: number }
  | { readonly pMethod: 'resampled'; readonly patterns: number; readonly resamples: number; readonly pFloor: number }

export type SignFlipResult = SignFlipMethod & {
  /** The statistic of the observed differences. */
  readonly statistic: number
  /** Two-sided: the share of sign patterns whose |statistic| is at least the observed one. */
  readonly pValue: number
  /** Patterns compared: 2^n when exact, else the resamples. */
  readonly patterns: number
  /** pMethod === 'exact' (kept for callers that read it). */
  readonly exact: boolean
}

/**
 * The sign patterns a distribution goes through: all 2^n up to `maxExact` values, else `resamples`
 * seeded random ones. `fill(p, negative)` writes pattern p (1: that value takes the minus sign).
 */
function signPatterns(n: number, options: SignFlipOptions) {
  const maxExact = options.maxExact ?? 14
  if (!(maxExact >= 1 && maxExact <= 24)) throw kerneltuneError('INVALID_INPUT', `maxExact must be between 1 and 24, got ${maxExact}`)
  const exact = n <= maxExact
  const next = mulberry32(options.seed ?? 1)
  return {
    exact,
    count: exact ? 2 ** n : (options.resamples ?? 20000),
    fill(p: number, negative: Uint8Array) {
      for (let i = 0; i < n; i++) negative[i] = exact ? (p >>> i) & 1 : next() < 0.5 ? 1 : 0
    },
  }
}

/**
 * The null distribution of |statistic|: its value for every sign pattern (or a random sample of
 * them) of the absolute differences, sorted ascending. It depends only on |x|, so one
 * distribution serves every re-signing of the same values.
 */
export function signFlipDistribution(xs: readonly number[], statistic: (d: readonly number[]) => number, options: SignFlipOptions = {}): { values: Float64Array; exact: boolean } {
  checkSamples(xs, 1)
  const n = xs.length
  const { exact, count, fill } = signPatterns(n, options)
  const abs = xs.map(Math.abs)
  const negative = new Uint8Array(n)
  const d = new Array<number>(n)
  const values = new Float64Array(count)
  for (let p = 0; p < count; p++) {
    fill(p, negative)
    for (let i = 0; i < n; i++) d[i] = negative[i] ? -abs[i]! : abs[i]!
    values[p] = Math.abs(statistic(d))
  }
  values.sort()
  return { values, exact }
}

/**
 * signFlipDistribution for the trimmed mean, without sorting each pattern. With the |values| in
 * descending order, a pattern's g lowest values are its g most negative ones — the first negatives
 * met — topped up, when it has fewer than g negatives, with its smallest positives (the last
 * positives met); its g highest likewise. So its trimmed mean is one pass. The same values as
 * `signFlipDistribution(xs, (d) => trimmedMean(d, proportion))` at a fraction of the cost (an
 * interleaved sweep computes one per arm and metric, and its time budget pays for them).
 */
export function signFlipTrimmedMeanDistribution(xs: readonly number[], proportion: number, options: SignFlipOptions = {}): { values: Float64Array; exact: boolean } {
  checkSamples(xs, 1)
  const n = xs.length
  const g = trimCount(n, proportion)
  const kept = n - 2 * g
  if (kept < 1) throw kerneltuneError('INSUFFICIENT_DATA', `${kept} value(s) left after trimming ${n}`)
  const { exact, count, fill } = signPatterns(n, options)
  const abs = xs.map(Math.abs).sort((a, b) => b - a)
  const values = new Float64Array(count)
  const negative = new Uint8Array(n)
  for (let p = 0; p < count; p++) {
    fill(p, negative)
    let nNeg = 0
    for (let i = 0; i < n; i++) nNeg += negative[i]!
    const nPos = n - nNeg
    // Dropped: the min(g, nNeg) most negative and min(g, nPos) most positive values, plus, from the
    // side with fewer than g, the values nearest zero on the other side.
    const lowNeg = Math.min(g, nNeg)
    const highPos = Math.min(g, nPos)
    const nearZeroPos = g - lowNeg
    const nearZeroNeg = g - highPos
    let negSeen = 0
    let posSeen = 0
    let sum = 0
    for (let i = 0; i < n; i++) {
      if (negative[i]) {
        if (negSeen >= lowNeg && negSeen < nNeg - nearZeroNeg) sum -= abs[i]!
        negSeen++
      } else {
        if (posSeen >= highPos && posSeen < nPos - nearZeroPos) sum += abs[i]!
        posSeen++
      }
    }
    values[p] = Math.abs(sum / kept)
  }
  values.sort()
  return { values, exact }
}

/** How a distribution from signFlipDistribution (or its trimmed-mean variant) gives its p-values. */
export function signFlipMethod(dist: { values: Float64Array; exact: boolean }): SignFlipMethod {
  const patterns = dist.values.length
  return dist.exact ? { pMethod: 'exact', patterns } : { pMethod: 'resampled', patterns, resamples: patterns, pFloor: 1 / (patterns + 1) }
}

/** 10000 → '10,000' (no Intl: the stats package runs wherever JavaScript does). */
const count = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/**
 * The method in words, for wherever a p-value is printed: 'exact (2^10 = 1,024 patterns)' or
 * 'resampled (10,000 patterns, p ≥ 1/10,001)'.
 */
export function describePMethod(m: SignFlipMethod): string {
  if (m.pMethod === 'exact') return `exact (2^${Math.round(Math.log2(m.patterns))} = ${count(m.patterns)} patterns)`
  return `resampled (${count(m.resamples)} patterns, p ≥ 1/${count(m.resamples + 1)})`
}

/** Two-sided p-value of `observed` against a distribution from signFlipDistribution. */
export function signFlipPValue(observed: number, dist: { values: Float64Array; exact: boolean }): number {
  const t = Math.abs(observed) * (1 - 1e-12) // ties with the observed value count as extreme
  // First index with value >= t (values ascending).
  let lo = 0
  let hi = dist.values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (dist.values[mid]! < t) lo = mid + 1
    else hi = mid
  }
  const extreme = dist.values.length - lo
  // A random sample of patterns does not contain the observed one for sure: count it (Phipson and Smyth).
  return dist.exact ? extreme / dist.values.length : (extreme + 1) / (dist.values.length + 1)
}

export function signFlipTest(xs: readonly number[], statistic: (d: readonly number[]) => number, options: SignFlipOptions = {}): SignFlipResult {
  const dist = signFlipDistribution(xs, statistic, options)
  const observed = statistic(xs)
  return { ...signFlipMethod(dist), statistic: observed, pValue: signFlipPValue(observed, dist), exact: dist.exact }
}
