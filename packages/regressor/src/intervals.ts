/**
 * Prediction intervals by split-conformal calibration on held-out residuals. The residuals are
 * log(measured ÷ predicted) of rows predicted by a model that never saw their hardware (leave one
 * hardware out), so the interval describes the error on an unseen chip, not the training fit. Its
 * coverage is itself measured out of sample: each chip's interval comes from the residuals of the
 * other chips only.
 */
import { z } from 'zod'

export const INTERVAL_LEVEL = 0.9 as const

export const IntervalQuantilesSchema: z.ZodObject<{ low: z.ZodNumber; high: z.ZodNumber; count: z.ZodNumber }> = z.object({ low: z.number(), high: z.number(), count: z.number().int().nonnegative() })
// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const IntervalStateSchema: z.ZodObject<{
  level: z.ZodNumber
  method: z.ZodString
  decode: typeof IntervalQuantilesSchema
  prefill: typeof IntervalQuantilesSchema
  byClass: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
    decode: z.ZodOptional<typeof IntervalQuantilesSchema>
    prefill: z.ZodOptional<typeof IntervalQuantilesSchema>
  }>>>
}> = z.object({
  level: z.number().gt(0).lt(1),
  method: z.string(),
  /** Log-ratio quantiles (log measured ÷ predicted) per phase. */
  decode: IntervalQuantilesSchema,
  prefill: IntervalQuantilesSchema,
  /**
   * Per hardware class (Mondrian conformal), where the class has enough chips to say how far off
   * an unseen member is; other classes use the pooled quantiles above.
   */
  byClass: z.record(z.string(), z.object({ decode: IntervalQuantilesSchema.optional(), prefill: IntervalQuantilesSchema.optional() })).optional(),
})
export type IntervalState = z.output<typeof IntervalStateSchema>

export interface PredictionInterval {
  low: number
  high: number
  level: number
}

/**
 * The split-conformal quantiles of log residuals: the ⌈(n+1)(1−α/2)⌉-th smallest as the upper
 * end and the ⌊(n+1)α/2⌋-th as the lower one (finite-sample valid for exchangeable rows).
 */
export function conformalQuantiles(residuals: readonly number[], level: number = INTERVAL_LEVEL): { low: number; high: number; count: number } {
  const s = residuals.filter(Number.isFinite).sort((a, b) => a - b)
  const n = s.length
  if (n === 0) return { low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY, count: 0 }
  const a = (1 - level) / 2
  // The 1e-9 keeps float noise ((1 − 0.9) / 2 = 0.04999…) from moving a rank.
  const hi = Math.min(Math.ceil((n + 1) * (1 - a) - 1e-9), n) - 1
  const lo = Math.max(Math.floor((n + 1) * a + 1e-9), 1) - 1
  return { low: s[lo]!, high: s[hi]!, count: n }
}

/** The interval of one prediction; the upper end never exceeds the roofline bound. */
export function intervalFor(predictedTps: number, boundTps: number, q: { low: number; high: number }, level: number): PredictionInterval {
  return { low: predictedTps * Math.exp(q.low), high: Math.min(predictedTps * Math.exp(q.high), boundTps), level }
}

/**
 * A class gets its own quantiles with at least this many chips and rows (per phase). With fewer
 * chips its members' held-out errors say little about the next one (with 3, Apple GPUs got M1/M3
 * quantiles that covered 47% of M2 Ultra rows), so small classes use the pooled quantiles.
 */
export const MIN_CLASS_CHIPS = 7
export const MIN_CLASS_ROWS = 20

export interface HeldOutRow {
  group: string
  /** Hardware class (physics-terms.ts `hardwareClass`), for class-conditional intervals. */
  cls: string
  phase: 'decode' | 'prefill'
  measured: number
  predicted: number
  bound: number
}

export interface CoverageReport {
  level: number
  /** Share of rows whose measurement fell inside their interval. */
  coverage: number
  /** Median of (high − low) ÷ predicted. */
  medianRelativeWidth: number
  rows: number
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : Number.NaN
}

/**
 * Coverage of the conformal interval on unseen hardware: for each chip, the quantiles are taken
 * from the held-out residuals of the other chips (same phase), then applied to its rows.
 */
export function heldOutCoverage(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL): { all: CoverageReport; decode: CoverageReport; prefill: CoverageReport; byGroup: Record<string, CoverageReport> } {
  const resid = rows.map((r) => Math.log(r.measured / r.predicted))
  const inside: boolean[] = []
  const width: number[] = []
  const cache = new Map<string, { low: number; high: number }>()
  rows.forEach((r, i) => {
    const key = `${r.group}|${r.phase}`
    let q = cache.get(key)
    if (!q) {
      // The same rule as the shipped state: the class's own quantiles when the other chips of its
      // class are enough, else the pooled ones, always without the chip's own rows.
      const others = rows.flatMap((o, j) => (o.group !== r.group && o.phase === r.phase ? [j] : []))
      const same = others.filter((j) => rows[j]!.cls === r.cls)
      const useClass = new Set(same.map((j) => rows[j]!.group)).size >= MIN_CLASS_CHIPS && same.length >= MIN_CLASS_ROWS
      q = conformalQuantiles((useClass ? same : others).map((j) => resid[j]!), level)
      cache.set(key, q)
    }
    const iv = intervalFor(r.predicted, r.bound, q, level)
    inside[i] = r.measured >= iv.low && r.measured <= iv.high
    width[i] = (iv.high - iv.low) / r.predicted
  })
  const report = (pick: (r: HeldOutRow) => boolean): CoverageReport => {
    const idx = rows.flatMap((r, i) => (pick(r) ? [i] : []))
    return { level, coverage: idx.filter((i) => inside[i]).length / Math.max(idx.length, 1), medianRelativeWidth: median(idx.map((i) => width[i]!)), rows: idx.length }
  }
  const byGroup: Record<string, CoverageReport> = {}
  for (const g of new Set(rows.map((r) => r.group))) byGroup[g] = report((r) => r.group === g)
  return { all: report(() => true), decode: report((r) => r.phase === 'decode'), prefill: report((r) => r.phase === 'prefill'), byGroup }
}

/** The interval state shipped with a model: quantiles of all held-out residuals, per phase. */
export function intervalState(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL): IntervalState {
  const q = (pick: HeldOutRow[]) => conformalQuantiles(pick.map((r) => Math.log(r.measured / r.predicted)), level)
  const byClass: NonNullable<IntervalState['byClass']> = {}
  for (const cls of new Set(rows.map((r) => r.cls))) {
    for (const phase of ['decode', 'prefill'] as const) {
      const pick = rows.filter((r) => r.cls === cls && r.phase === phase)
      if (new Set(pick.map((r) => r.group)).size >= MIN_CLASS_CHIPS && pick.length >= MIN_CLASS_ROWS) (byClass[cls] ??= {})[phase] = q(pick)
    }
  }
  return {
    level, method: 'split-conformal on leave-one-hardware-out log residuals (log measured ÷ predicted), per phase, per hardware class where it has 7+ chips',
    decode: q(rows.filter((r) => r.phase === 'decode')), prefill: q(rows.filter((r) => r.phase === 'prefill')), byClass,
  }
}
