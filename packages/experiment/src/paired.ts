/**
 * The comparisons an interleaved sweep makes. In round r every arm was measured close together in
 * time, so a ratio arm_r / baseline_r cancels whatever load the machine had in that round; the
 * estimate is a location of the log ratios (their mean, or their 20% trimmed mean).
 *
 * Three tests (`compareRounds` picks one):
 * - `'sign-flip'` (the sweep's default): the 20% trimmed mean of one arm's log ratios, its p-value
 *   from the sign-flip randomization test (@kerneltune/stats, sign-flip.ts): valid whatever the
 *   noise looks like, as long as an arm with no effect is as likely to read faster as slower in a
 *   round — which the random order within rounds provides. Exact (all 2^n sign patterns) up to 14
 *   rounds; past that resampled from 10,000 random patterns (so p ≥ 1/10,001), which the
 *   comparison says (`pMethod`, `patterns`, `resamples`, `pFloor`). A loaded machine's measurements have
 *   wild values (a round where a server was descheduled reads several times slower); one of them
 *   inflates a t-test's variance enough to hide a 40% effect, and the trimmed mean ignores it. The
 *   interval is the Tukey–McLaughlin interval of the trimmed mean (approximate; the verdict follows
 *   the p-value). With fewer than 7 rounds no p-value can reach 0.05 (minRoundsToDecide).
 * - `'paired'`: a one-sample t-test on the mean of the arm's log ratios (rounds − 1 degrees of
 *   freedom); exact under normal noise only.
 * - `'blocked'`: the rounds are the blocks of a randomized complete block design, every arm a
 *   treatment, and one error variance is estimated from the residuals of all arms together
 *   ((rounds − 1)(arms − 1) degrees of freedom; @kerneltune/stats blockedComparison). With 5 arms,
 *   3 rounds give 8 degrees of freedom where one arm's own ratios give 2 — but only if every arm
 *   carries the same noise. On a loaded CPU they do not: a CPU server with 2 threads collapses
 *   whenever a thread is descheduled at a barrier and with 1 thread it does not, and a pool of calm
 *   arms then understates the defaults' noise and crowns the A/A arm.
 */
import { blockedComparison, describePMethod, signFlipMethod, signFlipPValue, signFlipTrimmedMeanDistribution, studentTQuantile, trimmedMeanTest, type SignFlipMethod } from '@kerneltune/stats'

export type RoundsTest = 'sign-flip' | 'paired' | 'blocked'

export interface PairedComparison {
  /** Rounds where both the arm and the baseline were measured. */
  readonly n: number
  /** Candidate / baseline (geometric mean, or its trimmed version), minus 1, signed so that positive is better. */
  readonly improvement: number
  /** 95% (1 - alpha) interval of the improvement. */
  readonly interval: { readonly low: number; readonly high: number }
  readonly t: number
  /** Degrees of freedom of the t statistic and interval (h − 1 for a trimmed mean of h kept rounds). */
  readonly df: number
  readonly pValue: number
  readonly verdict: 'better' | 'worse' | 'indistinguishable'
  readonly test: RoundsTest
  /** Share of rounds trimmed from each end of the log ratios; 0 for the mean-based tests. */
  readonly trim: number
  /**
   * Sign-flip test only: how its p-value was computed. 'exact' over all `patterns` = 2^n; past 14
   * rounds 'resampled' over `resamples` (10,000) random patterns, never below `pFloor` =
   * 1/(resamples + 1). The t-based tests ('paired', 'blocked') leave these out.
   */
  readonly pMethod?: 'exact' | 'resampled'
  readonly patterns?: number
  readonly resamples?: number
  readonly pFloor?: number
}

/** Random sign patterns behind a sign-flip p-value past 14 rounds (the exact enumeration's limit). */
export const SIGN_FLIP_RESAMPLES = 10_000

/** A sign-flip comparison's p-value method (undefined for the t-based tests). */
export function signFlipMethodOf(c: PairedComparison): SignFlipMethod | undefined {
  if (!c.pMethod || c.patterns === undefined) return undefined
  return c.pMethod === 'exact' ? { pMethod: 'exact', patterns: c.patterns } : { pMethod: 'resampled', patterns: c.patterns, resamples: c.resamples ?? c.patterns, pFloor: c.pFloor ?? 1 / (c.patterns + 1) }
}

/**
 * How a comparison's p-value was computed, as printed beside it: 'sign-flip exact (2^10 = 1,024
 * patterns)', 'sign-flip resampled (10,000 patterns, p ≥ 1/10,001)', 't with 9 degrees of freedom'.
 */
export function pValueMethod(c: PairedComparison): string {
  const m = signFlipMethodOf(c)
  return m ? `sign-flip ${describePMethod(m)}` : `t with ${fmtDf(c.df)} degrees of freedom`
}
const fmtDf = (df: number) => (Number.isInteger(df) ? String(df) : df.toFixed(1))

/** The sign-flip test's trim: 20% from each end, the usual robust choice (Wilcox). */
export const SIGN_FLIP_TRIM = 0.2

/**
 * The fewest rounds in which the sign-flip test can reach p < alpha at all: its smallest p-value
 * with n rounds is 2·2^g / 2^n (every ratio on one side, and the g trimmed smallest ones free to
 * take either sign), g = floor(0.2 n). 7 for alpha = 0.05.
 */
export function minRoundsToDecide(alpha = 0.05): number {
  for (let n = 2; n < 64; n++) if (2 ** (Math.floor(SIGN_FLIP_TRIM * n + 1e-9) + 1 - n) < alpha) return n
  return 64
}

const positive = (x: number | undefined): x is number => x !== undefined && x > 0 && Number.isFinite(x)

function comparisonOf(sign: number, est: number, se: number, df: number, pValue: number, alpha: number, test: RoundsTest, n: number, trim: number): PairedComparison {
  const m = sign * est
  const t = se === 0 ? (m === 0 ? 0 : Math.sign(m) * Infinity) : m / se
  const q = studentTQuantile(1 - alpha / 2, df)
  const significant = pValue < alpha && m !== 0
  return {
    n,
    improvement: Math.expm1(m),
    interval: { low: Math.expm1(m - q * se), high: Math.expm1(m + q * se) },
    t,
    df,
    pValue,
    verdict: !significant ? 'indistinguishable' : m > 0 ? 'better' : 'worse',
    test,
    trim,
  }
}

// The sign-flip null distribution depends only on |log ratios|: the A/A check re-signs the same
// values thousands of times, so the last few distributions are kept. The key rounds to 12 digits:
// log(b/a) is not always bit-for-bit −log(a/b), and a miss recomputes up to 16,384 patterns.
const distributions = new Map<string, ReturnType<typeof signFlipTrimmedMeanDistribution>>()
function distributionOf(d: readonly number[]) {
  const key = d.map((x) => Math.abs(x).toPrecision(12)).sort().join(',')
  let dist = distributions.get(key)
  if (!dist) {
    // 10,000 random patterns beyond 14 rounds: a p-value near 0.05 then has a standard error of 0.002.
    dist = signFlipTrimmedMeanDistribution(d, SIGN_FLIP_TRIM, { resamples: SIGN_FLIP_RESAMPLES })
    if (distributions.size >= 16) distributions.delete(distributions.keys().next().value!)
    distributions.set(key, dist)
  }
  return dist
}

/**
 * Pairs are (candidate, baseline) values of one round; rounds where either is missing are left out
 * by the caller. `test` is 'paired' (t-test on the mean log ratio, the default here) or 'sign-flip'.
 */
export function pairedComparison(pairs: readonly (readonly [number, number])[], higherIsBetter: boolean, alpha = 0.05, test: 'paired' | 'sign-flip' = 'paired'): PairedComparison | undefined {
  const d = pairs.filter(([a, b]) => positive(a) && positive(b)).map(([a, b]) => Math.log(a / b))
  if (d.length < 2) return undefined
  const sign = higherIsBetter ? 1 : -1
  if (test === 'paired') {
    const r = trimmedMeanTest(d, 0)
    return comparisonOf(sign, r.difference, r.standardError, r.df, r.pValue, alpha, 'paired', d.length, 0)
  }
  const r = trimmedMeanTest(d, SIGN_FLIP_TRIM)
  const dist = distributionOf(d)
  return { ...comparisonOf(sign, r.difference, r.standardError, r.df, signFlipPValue(r.difference, dist), alpha, 'sign-flip', d.length, SIGN_FLIP_TRIM), ...signFlipMethod(dist) }
}

/**
 * Every arm against the baseline in one blocked analysis. `table[round][arm]` is a measured value
 * (undefined where the arm was not measured: it had failed, or the metric was missing); arm 0 is
 * the baseline. Returns one comparison per arm (undefined for the baseline and where the rounds
 * cannot support a test: fewer than 2 rounds, or no arm measured in every round beside the
 * baseline).
 */
export function blockedComparisons(table: readonly (readonly (number | undefined)[])[], higherIsBetter: boolean, alpha = 0.05): (PairedComparison | undefined)[] {
  const arms = table.reduce((m, row) => Math.max(m, row.length), 0)
  const logs = table.map((row) => Array.from({ length: arms }, (_, j) => (positive(row[j]) ? Math.log(row[j]!) : undefined)))
  const rounds = logs.filter((row) => row[0] !== undefined).length
  const complete = Array.from({ length: arms }, (_, j) => j).filter((j) => j > 0 && rounds > 0 && logs.every((row) => row[0] === undefined || row[j] !== undefined))
  if (rounds < 2 || complete.length === 0) return Array.from({ length: arms }, () => undefined)
  const r = blockedComparison(logs, { alpha })
  return r.comparisons.map((c) => (c ? comparisonOf(higherIsBetter ? 1 : -1, c.difference, c.standardError, c.df, c.pValue, alpha, 'blocked', c.blocks, 0) : undefined))
}

/** Every arm (column) against the baseline (column 0) with the chosen test; see the module comment. */
export function compareRounds(table: readonly (readonly (number | undefined)[])[], higherIsBetter: boolean, alpha = 0.05, test: RoundsTest = 'sign-flip'): (PairedComparison | undefined)[] {
  if (test === 'blocked') return blockedComparisons(table, higherIsBetter, alpha)
  const arms = table.reduce((m, row) => Math.max(m, row.length), 0)
  return Array.from({ length: arms }, (_, j) => {
    if (j === 0) return undefined
    // pairedComparison drops the rounds where either value is missing or not positive.
    return pairedComparison(table.map((row) => [row[j] ?? Number.NaN, row[0] ?? Number.NaN] as const), higherIsBetter, alpha, test)
  })
}
