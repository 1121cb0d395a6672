/**
 * Comparisons against a control in a randomized complete block design: every block (a round of
 * an interleaved sweep) measures every treatment (an arm) once, in a random order. The additive
 * model y[b][t] = mean + block_b + treatment_t + error removes whatever the block shares (the
 * machine's load during that round), and — unlike a paired t-test per treatment, which estimates
 * the noise from that treatment's own differences with the control (blocks − 1 degrees of
 * freedom) — it estimates one error variance from every treatment's residuals, with
 * (blocks − 1)(treatments − 1) degrees of freedom. With 5 arms and 3 rounds that is 8 instead of
 * 2, so the t quantile a difference must clear drops from 4.30 to 2.31: the same measurements
 * reach a decision far sooner. The price is an assumption: the treatments share one error
 * variance (on the scale given: pass log values for throughput, where noise is multiplicative).
 *
 * Values are given on the additive scale (the caller takes logs); `undefined` is a missing
 * measurement. Treatments that are measured in every block where the control is pool their
 * residuals; a treatment that dropped out (it failed at some round) is compared on the blocks it
 * has, with the pooled variance.
 *
 * @example
 * ```ts
 * // 3 rounds × [control, A, B]: A is 0.1 above the control in every round despite the drift.
 * const r = blockedComparison([[1.0, 1.1, 1.0], [1.5, 1.61, 1.49], [0.7, 0.79, 0.71]])
 * console.log(r.comparisons[1]?.difference, r.comparisons[1]?.pValue) // 0.1, < 0.001
 * ```
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { studentTQuantile, studentTTwoSided } from './distributions.ts'

export interface BlockedTreatmentComparison {
  /** Column of the treatment in the table. */
  readonly treatment: number
  /** Blocks where both the treatment and the control were measured. */
  readonly blocks: number
  /** Mean over those blocks of treatment − control. */
  readonly difference: number
  readonly standardError: number
  /** Degrees of freedom of the pooled error variance. */
  readonly df: number
  readonly t: number
  /** Exact two-sided p-value from the Student t distribution. */
  readonly pValue: number
  /** (1 − alpha) interval of the difference. */
  readonly interval: { readonly low: number; readonly high: number }
}

export interface BlockedAnalysis {
  /** Blocks where the control was measured. */
  readonly blocks: number
  /** Columns (the control included) whose residuals estimate the error variance. */
  readonly pooledTreatments: readonly number[]
  /** The error variance of one measurement, from the additive model's residuals. */
  readonly residualVariance: number
  readonly df: number
  /** Per column; undefined for the control and for treatments with fewer than 1 shared block. */
  readonly comparisons: readonly (BlockedTreatmentComparison | undefined)[]
}

export interface BlockedOptions {
  /** Column of the control; default 0. */
  readonly control?: number
  /** For the intervals; default 0.05. */
  readonly alpha?: number
}

const defined = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x)

/**
 * Compares every treatment (column) with the control, blocks being rows. Needs at least 2 blocks
 * with the control and one other treatment measured in all of them (the error variance needs
 * (blocks − 1)(treatments − 1) ≥ 1 degrees of freedom).
 */
export function blockedComparison(table: readonly (readonly (number | undefined)[])[], options: BlockedOptions = {}): BlockedAnalysis {
  const control = options.control ?? 0
  const alpha = options.alpha ?? 0.05
  if (!(alpha > 0 && alpha < 1)) throw kerneltuneError('INVALID_INPUT', `alpha must be in (0, 1), got ${alpha}`)
  const columns = table.reduce((m, row) => Math.max(m, row.length), 0)
  if (!(control >= 0 && control < columns)) throw kerneltuneError('INVALID_INPUT', `control column ${control} is not in a table of ${columns} columns`)
  const rows = table.filter((row) => defined(row[control]))
  const B = rows.length
  const pooled = Array.from({ length: columns }, (_, j) => j).filter((j) => rows.every((row) => defined(row[j])))
  const T = pooled.length
  const df = (B - 1) * (T - 1)
  if (B < 2 || T < 2) throw kerneltuneError('INSUFFICIENT_DATA', `a blocked comparison needs 2 blocks and a treatment measured in each beside the control; got ${B} block(s) and ${T - 1} complete treatment(s)`)

  // Residuals of the additive model on the complete sub-table: y − block mean − treatment mean + grand mean.
  const cell = (i: number, j: number) => rows[i]![j] as number
  const blockMean = rows.map((_, i) => pooled.reduce((s, j) => s + cell(i, j), 0) / T)
  const treatmentMean = pooled.map((j) => rows.reduce((s, _, i) => s + cell(i, j), 0) / B)
  const grand = blockMean.reduce((a, b) => a + b, 0) / B
  let ss = 0
  rows.forEach((_, i) => pooled.forEach((j, k) => (ss += (cell(i, j) - blockMean[i]! - treatmentMean[k]! + grand) ** 2)))
  const residualVariance = ss / df
  const q = studentTQuantile(1 - alpha / 2, df)

  const comparisons = Array.from({ length: columns }, (_, j): BlockedTreatmentComparison | undefined => {
    if (j === control) return undefined
    const d = rows.filter((row) => defined(row[j])).map((row) => (row[j] as number) - (row[control] as number))
    if (d.length === 0) return undefined
    const difference = d.reduce((a, b) => a + b, 0) / d.length
    // Var(treatment − control) in one block is 2σ²; the mean over n blocks has 2σ²/n.
    const standardError = Math.sqrt((2 * residualVariance) / d.length)
    const t = standardError === 0 ? (difference === 0 ? 0 : Math.sign(difference) * Infinity) : difference / standardError
    const pValue = Number.isFinite(t) ? studentTTwoSided(t, df) : 0
    return { treatment: j, blocks: d.length, difference, standardError, df, t, pValue, interval: { low: difference - q * standardError, high: difference + q * standardError } }
  })
  return { blocks: B, pooledTreatments: pooled, residualVariance, df, comparisons }
}
