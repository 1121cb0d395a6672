/**
 * The comparisons an interleaved sweep makes. In round r every arm was measured close together in
 * time, so a ratio arm_r / baseline_r cancels whatever load the machine had in that round; the
 * estimate is the geometric mean ratio (a mean of log ratios).
 *
 * Two tests on those log ratios (`compareRounds` picks one):
 * - `pairedComparison` (the sweep's default): a one-sample t-test on one arm's own log ratios
 *   (rounds − 1 degrees of freedom). It assumes nothing about the other arms' noise, which matters
 *   on a loaded CPU: there llama-server with 2 threads collapses whenever a thread is descheduled
 *   at a barrier, and with 1 thread it does not, so the arms' noise differs several-fold.
 * - `blockedComparisons`: the rounds are the blocks of a randomized complete block design, every
 *   arm a treatment, and one error variance is estimated from the residuals of all arms together
 *   ((rounds − 1)(arms − 1) degrees of freedom; @kerneltune/stats blockedComparison). With 5 arms,
 *   3 rounds give 8 degrees of freedom where one arm's own ratios give 2 — but only if every arm
 *   carries the same noise; where the defaults are noisier than the pool, it calls differences
 *   between two copies of the defaults significant more often than alpha.
 */
import { blockedComparison, studentTQuantile, studentTTwoSided } from '@kerneltune/stats'

export interface PairedComparison {
  /** Rounds where both the arm and the baseline were measured. */
  readonly n: number
  /** Geometric mean of candidate / baseline, minus 1, signed so that positive is better. */
  readonly improvement: number
  /** 95% (1 - alpha) interval of the improvement. */
  readonly interval: { readonly low: number; readonly high: number }
  readonly t: number
  /** Degrees of freedom of the test (n − 1 paired; (rounds − 1)(arms − 1) blocked). */
  readonly df: number
  readonly pValue: number
  readonly verdict: 'better' | 'worse' | 'indistinguishable'
  /** 'blocked': the error variance pooled over every arm of the rounds; 'paired': this arm's log ratios alone. */
  readonly test: 'blocked' | 'paired'
}

const positive = (x: number | undefined): x is number => x !== undefined && x > 0 && Number.isFinite(x)

function verdictOf(sign: number, mean: number, se: number, df: number, alpha: number, test: PairedComparison['test'], n: number): PairedComparison {
  const m = sign * mean
  const t = se === 0 ? (m === 0 ? 0 : Math.sign(m) * Infinity) : m / se
  const pValue = Number.isFinite(t) ? studentTTwoSided(t, df) : 0
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
  }
}

/** Pairs are (candidate, baseline) values of one round; rounds where either is missing are left out by the caller. */
export function pairedComparison(pairs: readonly (readonly [number, number])[], higherIsBetter: boolean, alpha = 0.05): PairedComparison | undefined {
  const d = pairs.filter(([a, b]) => positive(a) && positive(b)).map(([a, b]) => Math.log(a / b))
  const n = d.length
  if (n < 2) return undefined
  const mean = d.reduce((x, y) => x + y, 0) / n
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1))
  return verdictOf(higherIsBetter ? 1 : -1, mean, sd / Math.sqrt(n), n - 1, alpha, 'paired', n)
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
  return r.comparisons.map((c) => (c ? verdictOf(higherIsBetter ? 1 : -1, c.difference, c.standardError, c.df, alpha, 'blocked', c.blocks) : undefined))
}

export type RoundsTest = 'paired' | 'blocked'

/** Every arm (column) against the baseline (column 0) with the chosen test; see the module comment. */
export function compareRounds(table: readonly (readonly (number | undefined)[])[], higherIsBetter: boolean, alpha = 0.05, test: RoundsTest = 'paired'): (PairedComparison | undefined)[] {
  if (test === 'blocked') return blockedComparisons(table, higherIsBetter, alpha)
  const arms = table.reduce((m, row) => Math.max(m, row.length), 0)
  return Array.from({ length: arms }, (_, j) => {
    if (j === 0) return undefined
    const pairs = table.filter((row) => positive(row[j]) && positive(row[0])).map((row) => [row[j]!, row[0]!] as const)
    return pairedComparison(pairs, higherIsBetter, alpha)
  })
}
