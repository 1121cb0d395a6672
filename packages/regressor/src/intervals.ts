/**
 * Prediction intervals by split-conformal calibration on held-out residuals. The residuals are
 * log(measured ÷ predicted) of rows predicted by a model that never saw their hardware (leave one
 * hardware out), so the interval describes the error on an unseen chip, not the training fit. Its
 * coverage is itself measured out of sample: each chip's interval comes from the residuals of the
 * other chips only.
 */
import { z } from 'zod'
import { backendOf, hardwareClass, isLegacy } from './physics-terms.ts'
import type { ThroughputQuery } from './query.ts'

export const INTERVAL_LEVEL = 0.9 as const

export const IntervalQuantilesSchema: z.ZodObject<{ low: z.ZodNumber; high: z.ZodNumber; count: z.ZodNumber }> = z.object({ low: z.number(), high: z.number(), count: z.number().int().nonnegative() })
/**
 * Normalised nonconformity: each residual is divided by the typical error of its workload regime
 * (`intervalRegime`) before the quantiles are taken, so a regime that held-out chips get badly wrong
 * (batched MoE decode on a current build) gets a wide interval and a well-covered one (batch-1 dense
 * decode on an old build) a narrow one, at the same overall coverage.
 */
// The zod types are spelled out (not inferred) so JSR can publish the package without slow types.
export const IntervalScaleSchema: z.ZodObject<{
  cells: z.ZodRecord<z.ZodString, z.ZodNumber>; decode: z.ZodNumber; prefill: z.ZodNumber; shrink: z.ZodNumber
}> = z.object({
  /** Mean |log residual| per regime, shrunk towards its phase's mean by `shrink` pseudo-rows. */
  cells: z.record(z.string(), z.number().positive()),
  /** Mean |log residual| per phase, for a regime the held-out rows never had. */
  decode: z.number().positive(),
  prefill: z.number().positive(),
  shrink: z.number().nonnegative(),
})
export const IntervalStateSchema: z.ZodObject<{
  level: z.ZodNumber; method: z.ZodString; decode: typeof IntervalQuantilesSchema; prefill: typeof IntervalQuantilesSchema
  scale: z.ZodOptional<typeof IntervalScaleSchema>
  weighting: z.ZodOptional<z.ZodObject<{ decode: z.ZodNumber; prefill: z.ZodNumber }>>
  support: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodNumber>>
}> = z.object({
  level: z.number().gt(0).lt(1),
  method: z.string(),
  /** Quantiles per phase of log(measured ÷ predicted), divided by the regime's scale when `scale` is present. */
  decode: IntervalQuantilesSchema,
  prefill: IntervalQuantilesSchema,
  scale: IntervalScaleSchema.optional(),
  /** Per phase, the exponent p of the chip weighting the quantiles were taken with (`CHIP_WEIGHTINGS`). */
  weighting: z.object({ decode: z.number().min(0).max(1), prefill: z.number().min(0).max(1) }).optional(),
  /**
   * Present when the regimes carry how close a query is to the training data (`supportKey`): the
   * number of chips of the fitted model's training rows per kind of device and backend build.
   */
  support: z.record(z.string(), z.number().int().nonnegative()).optional(),
})
export type IntervalState = z.output<typeof IntervalStateSchema>
export type IntervalScale = z.output<typeof IntervalScaleSchema>

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

/**
 * Weighted split-conformal quantiles: with unit weights exactly `conformalQuantiles`; with weights,
 * the upper end is the smallest residual whose cumulative weight reaches (1 − α/2) of the total
 * plus one mean weight (the test point's), the lower end the largest within α/2 of it.
 */
export function weightedConformalQuantiles(residuals: readonly number[], weights: readonly number[], level: number = INTERVAL_LEVEL): { low: number; high: number; count: number } {
  const pairs = residuals.map((r, i) => [r, weights[i]!] as const).filter(([r, w]) => Number.isFinite(r) && w > 0).sort((x, y) => x[0] - y[0])
  const n = pairs.length
  if (n === 0) return { low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY, count: 0 }
  const a = (1 - level) / 2
  const total = pairs.reduce((t, [, w]) => t + w, 0)
  const mean = total / n
  const hiTarget = (1 - a) * (total + mean) - 1e-9 * mean
  const loTarget = a * (total + mean) + 1e-9 * mean
  let hi = n - 1
  let lo = 0
  let cum = 0
  for (let k = 0; k < n; k++) {
    cum += pairs[k]![1]
    if (cum <= loTarget) lo = k
    if (cum >= hiTarget) {
      hi = k
      break
    }
  }
  return { low: pairs[lo]![0], high: pairs[hi]![0], count: n }
}

/**
 * Chip weightings the interval may be calibrated with: each held-out row weighs (rows of its chip in
 * its phase)^−p. p = 0 treats rows as exchangeable (chips with sweeps, GB10 and M2 Ultra's hundreds of
 * rows, set the quantiles); p = 1 treats chips as exchangeable, which is what leave-one-chip-out
 * holds out; 0.5 between. Which one is chosen on held-out chips (`chooseWeighting`), not fixed.
 */
export const CHIP_WEIGHTINGS: readonly number[] = [0, 0.5, 1]

/**
 * The interval of one prediction (quantiles times the regime's scale, 1 when unscaled); the upper
 * end never exceeds the roofline bound.
 */
export function intervalFor(predictedTps: number, boundTps: number, q: { low: number; high: number }, level: number, scale = 1): PredictionInterval {
  return { low: predictedTps * Math.exp(q.low * scale), high: Math.min(predictedTps * Math.exp(q.high * scale), boundTps), level }
}

/**
 * Pseudo-rows that pull a regime's scale towards its phase's mean (fixed before any coverage was
 * measured, not tuned): a regime seen in a handful of rows keeps most of the phase's scale.
 */
export const SCALE_SHRINK = 20

/**
 * The workload regime of a query, the cell of the normalised interval: phase, batch, MoE, build age,
 * and whether the prediction extrapolates (needs an effect, such as its backend's current build or
 * its vendor, that no training row had: `unseenEffects`). Held out, such rows are the ones a model
 * gets most wrong, so their own scale widens the interval of a query that extrapolates.
 */
/** The suffix of an extrapolating query's regime. */
const EXTRAPOLATING = '|x'

export function intervalRegime(q: { phase: string; batch: number; paramsB: number; activeParamsB?: number | undefined; engineEra?: string | undefined }, extrapolates = false, support?: number): string {
  const moe = (q.activeParamsB ?? q.paramsB) < q.paramsB
  const era = q.engineEra === 'legacy-2023' ? 'legacy' : (q.engineEra ?? 'current')
  const near = support === undefined ? '' : `|${supportBucket(support)}`
  return `${q.phase}|${q.batch > 1 ? 'batch' : 'single'}|${moe ? 'moe' : 'dense'}|${era}${near}${extrapolates ? EXTRAPOLATING : ''}`
}

/**
 * How close a query is to the training data, as the kind of device and build it runs on: hardware
 * class (cpu, apple-gpu, nvidia-gddr, nvidia-hbm, nvidia-unified, amd-gpu, …), backend and build age.
 * The training chips of the same key are what the fit could borrow the query's efficiencies from.
 */
export function supportKey(q: ThroughputQuery): string {
  return `${hardwareClass(q)}|${backendOf(q)}|${isLegacy(q) ? 'legacy' : 'current'}`
}

/**
 * Chips per `supportKey` among training rows (`chip` maps a row to its die), the table an interval
 * state keeps so that a prediction knows how many dies of its kind its model was fitted on.
 */
export function supportTable(rows: readonly { query: ThroughputQuery; chip: string }[]): Record<string, number> {
  const chips = new Map<string, Set<string>>()
  for (const r of rows) {
    const k = supportKey(r.query)
    ;(chips.get(k) ?? chips.set(k, new Set()).get(k)!).add(r.chip)
  }
  return Object.fromEntries([...chips].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, v.size]))
}

/**
 * Support buckets, fixed before any coverage was measured: no chip of the query's kind and build in
 * training, one (its efficiencies come from a single die), or two and more (leave-one-chip-out has
 * seen its kind vary). Chips, not rows, because rows of one chip (GB10's sweeps) do not tell how a
 * new die of that kind behaves.
 */
export function supportBucket(chips: number): string {
  return chips <= 0 ? 'n0' : chips === 1 ? 'n1' : 'n2'
}

/** The regime scales of a set of held-out rows (mean |log residual| per regime, shrunk). */
export function intervalScale(rows: readonly HeldOutRow[], shrink: number = SCALE_SHRINK): IntervalScale {
  const sum = (pick: readonly HeldOutRow[]) => pick.reduce((a, r) => a + Math.abs(Math.log(r.measured / r.predicted)), 0)
  const phaseMean = (phase: string) => {
    const pick = rows.filter((r) => r.phase === phase)
    return pick.length ? Math.max(sum(pick) / pick.length, 1e-6) : 1
  }
  const decode = phaseMean('decode')
  const prefill = phaseMean('prefill')
  const cells: Record<string, number> = {}
  for (const regime of new Set(rows.map((r) => r.regime))) {
    const pick = rows.filter((r) => r.regime === regime)
    const m = pick[0]!.phase === 'prefill' ? prefill : decode
    cells[regime] = Math.max((sum(pick) + shrink * m) / (pick.length + shrink), 1e-6)
  }
  return { cells, decode, prefill, shrink }
}

/** The scale of one query's residual under a state (1 for a state without scales). */
export function scaleOf(scale: IntervalScale | undefined, regime: string, phase: 'decode' | 'prefill'): number {
  if (!scale) return 1
  const own = scale.cells[regime] ?? scale[phase]
  // A query that extrapolates knows less than the same query inside the data, so its interval is never
  // the narrower one: with 18 H100 rows added, the inner residuals of extrapolating batch-1 decode came
  // out smaller than those inside the data, and an unseen backend got a tighter interval than a seen one.
  if (!regime.endsWith(EXTRAPOLATING)) return own
  return Math.max(own, scale.cells[regime.slice(0, -EXTRAPOLATING.length)] ?? scale[phase])
}

export interface HeldOutRow {
  group: string
  /** Hardware class (physics-terms.ts `hardwareClass`), reported per class. */
  cls: string
  /** Workload regime (`intervalRegime`), the cell of the normalised interval. */
  regime: string
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
 * The interval each held-out row gets on unseen hardware: for each chip, the regime scales and the
 * quantiles are taken from the held-out residuals of the other chips only, then applied to its rows.
 * Per row: whether the measurement fell inside, and the width (high − low) ÷ predicted.
 */
export function heldOutIntervals(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL, weighting?: { decode: number; prefill: number }): { inside: boolean[]; width: number[] } {
  const inside: boolean[] = []
  const width: number[] = []
  for (const group of new Set(rows.map((r) => r.group))) {
    const state = intervalState(rows.filter((o) => o.group !== group), level, weighting)
    rows.forEach((r, i) => {
      if (r.group !== group) return
      const iv = intervalFor(r.predicted, r.bound, state[r.phase], level, scaleOf(state.scale, r.regime, r.phase))
      inside[i] = r.measured >= iv.low && r.measured <= iv.high
      width[i] = (iv.high - iv.low) / r.predicted
    })
  }
  return { inside, width }
}

/** Coverage and median width of a subset of held-out rows (row indices) under `heldOutIntervals`. */
export function coverageOfRows(idx: readonly number[], iv: { inside: readonly boolean[]; width: readonly number[] }, level: number = INTERVAL_LEVEL): CoverageReport {
  return { level, coverage: idx.filter((i) => iv.inside[i]).length / Math.max(idx.length, 1), medianRelativeWidth: median(idx.map((i) => iv.width[i]!)), rows: idx.length }
}

/** Coverage of the conformal interval on unseen hardware (`heldOutIntervals`), overall, per phase and per chip. */
export function heldOutCoverage(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL): { all: CoverageReport; decode: CoverageReport; prefill: CoverageReport; byGroup: Record<string, CoverageReport> } {
  const iv = heldOutIntervals(rows, level)
  const report = (pick: (r: HeldOutRow) => boolean) => coverageOfRows(rows.flatMap((r, i) => (pick(r) ? [i] : [])), iv, level)
  const byGroup: Record<string, CoverageReport> = {}
  for (const g of new Set(rows.map((r) => r.group))) byGroup[g] = report((r) => r.group === g)
  return { all: report(() => true), decode: report((r) => r.phase === 'decode'), prefill: report((r) => r.phase === 'prefill'), byGroup }
}

/**
 * The interval state shipped with a model: regime scales and normalised quantiles of all held-out
 * residuals, weighted per phase by `weighting` (exponents of CHIP_WEIGHTINGS; unweighted without).
 */
export function intervalState(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL, weighting?: { decode: number; prefill: number }, support?: Record<string, number>): IntervalState {
  const scale = intervalScale(rows)
  const q = (phase: 'decode' | 'prefill') => {
    const pick = rows.filter((r) => r.phase === phase)
    const res = pick.map((r) => Math.log(r.measured / r.predicted) / scaleOf(scale, r.regime, phase))
    if (!weighting) return conformalQuantiles(res, level)
    const counts = new Map<string, number>()
    for (const r of pick) counts.set(r.group, (counts.get(r.group) ?? 0) + 1)
    return weightedConformalQuantiles(res, pick.map((r) => counts.get(r.group)! ** -weighting[phase]), level)
  }
  return {
    level, method: `split-conformal on held-out-chip log residuals (log measured ÷ predicted) per phase, each divided by its workload regime's mean |residual| (phase, batch, MoE, build age, ${support ? 'training chips of the same device class, backend and build age (0, 1, 2+), ' : ''}extrapolation; shrunk to the phase mean with ${scale.shrink} pseudo-rows)${weighting ? `, rows weighted by (rows of their chip)^−p, p = ${weighting.decode} decode, ${weighting.prefill} prefill` : ''}`,
    decode: q('decode'), prefill: q('prefill'), scale, ...(weighting ? { weighting } : {}), ...(support ? { support } : {}),
  }
}

/**
 * The chip weighting per phase whose intervals, each chip's taken from the other chips' residuals,
 * cover closest to the nominal level over rows and over chips (the sum of both misses; ties: the
 * narrower): over rows alone, the chips with sweeps would decide. Run on the held-out rows of the
 * training chips only, it is part of the nested selection, like the model variant.
 */
/**
 * Inner coverage a calibration must reach to be chosen for its width: issue 38's target band (85–95%)
 * halved around the 90% level, so that a choice made on the training chips keeps a margin on the
 * unseen one (fixed before any run with it).
 */
export const COVERAGE_BAND: readonly [number, number] = [0.875, 0.925]

/**
 * The interval calibration chosen on held-out rows of training chips: with or without the support
 * buckets in the regimes (`rows` and `supportRows`: the same rows, regimes without and with them) and,
 * per phase, the chip weighting. Per phase, among the candidates whose coverage over rows and the mean
 * over chips (each inner chip's interval from the other chips' residuals) both fall in
 * `COVERAGE_BAND`, the narrowest (median width over rows) wins; if none does,
 * the one closest to the level (as `chooseWeighting`). The support buckets are used for both phases or
 * for neither (one state), decided by the summed rank of the phases' best candidates.
 */
export function chooseInterval(rows: readonly HeldOutRow[], supportRows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL): { weighting: { decode: number; prefill: number }; support: boolean } {
  const best = (set: readonly HeldOutRow[]) => {
    const out = { decode: 0, prefill: 0, cost: 0 }
    for (const phase of ['decode', 'prefill'] as const) {
      const s = scoreWeightings(set, phase, level)
      const inBand = s.filter((x) => x.inBand)
      const pick = inBand.length ? inBand.reduce((b, x) => (x.width < b.width - 1e-12 ? x : b)) : s.reduce((b, x) => (x.miss < b.miss - 1e-12 || (Math.abs(x.miss - b.miss) <= 1e-12 && x.width < b.width) ? x : b))
      out[phase] = pick.p
      // In band: cost is the width; out of band: a miss outranks any width.
      out.cost += pick.inBand ? pick.width : 10 + pick.miss
    }
    return out
  }
  const plain = best(rows)
  const near = best(supportRows)
  const useSupport = near.cost < plain.cost - 1e-12
  const w = useSupport ? near : plain
  return { weighting: { decode: w.decode, prefill: w.prefill }, support: useSupport }
}

function scoreWeightings(rows: readonly HeldOutRow[], phase: 'decode' | 'prefill', level: number): { p: number; miss: number; width: number; inBand: boolean }[] {
  const idx = rows.flatMap((r, i) => (r.phase === phase ? [i] : []))
  const groups = [...new Set(idx.map((i) => rows[i]!.group))]
  return CHIP_WEIGHTINGS.map((p) => {
    const iv = heldOutIntervals(rows, level, { decode: p, prefill: p })
    const c = coverageOfRows(idx, iv, level)
    const chips = groups.reduce((t, g) => t + coverageOfRows(idx.filter((i) => rows[i]!.group === g), iv, level).coverage, 0) / Math.max(groups.length, 1)
    const band = (x: number) => x >= COVERAGE_BAND[0] - 1e-12 && x <= COVERAGE_BAND[1] + 1e-12
    return { p, miss: Math.abs(c.coverage - level) + Math.abs(chips - level), width: c.medianRelativeWidth, inBand: band(c.coverage) && band(chips) }
  })
}

export function chooseWeighting(rows: readonly HeldOutRow[], level: number = INTERVAL_LEVEL): { decode: number; prefill: number } {
  const pick = (phase: 'decode' | 'prefill') => {
    const idx = rows.flatMap((r, i) => (r.phase === phase ? [i] : []))
    const groups = [...new Set(idx.map((i) => rows[i]!.group))]
    const scored = CHIP_WEIGHTINGS.map((p) => {
      const iv = heldOutIntervals(rows, level, { decode: p, prefill: p })
      const c = coverageOfRows(idx, iv, level)
      const chips = groups.reduce((t, g) => t + coverageOfRows(idx.filter((i) => rows[i]!.group === g), iv, level).coverage, 0) / Math.max(groups.length, 1)
      return { p, miss: Math.abs(c.coverage - level) + Math.abs(chips - level), width: c.medianRelativeWidth }
    })
    return scored.reduce((b, x) => (x.miss < b.miss - 1e-12 || (Math.abs(x.miss - b.miss) <= 1e-12 && x.width < b.width) ? x : b)).p
  }
  return { decode: pick('decode'), prefill: pick('prefill') }
}
