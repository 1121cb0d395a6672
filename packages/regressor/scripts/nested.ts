/**
 * Nested leave-one-chip-out evaluation (issue 26). The outer loop holds out one chip (a die: every
 * label of it, `chipOf`) at a time. Inside each outer fold, on the training chips only, the model
 * variant is chosen by grouped inner cross-validation (INNER_FOLDS folds of whole chips), and the
 * 90% interval is calibrated on those inner held-out residuals; the chosen variant is then fitted on
 * every training chip and predicts the held-out chip. So nothing about the held-out chip, neither
 * its rows nor its errors, reaches the choice of variant, the fit or the interval: the outer figures
 * are what a new chip should expect. The shipped model goes through the same inner procedure on all
 * chips.
 */
import { chooseInterval, intervalFor, intervalRegime, intervalState, scaleOf, supportKey, supportTable, type HeldOutRow, type IntervalState } from '../src/intervals.ts'
import { LearnedModel, mapeOf, prepare, type PreparedRow, type TrainOptions, type TrainingSample } from '../src/learned.ts'
import { chipOf } from '../src/chips.ts'
import { unseenEffects, type PhysicsState } from '../src/physics.ts'
import { hardwareClass } from '../src/physics-terms.ts'

/**
 * The variant grid: the physics model at three strengths of the ridge penalty on its class,
 * vendor, format and backend effects (how far a chip's kind may move from the shared multipliers).
 * Kept small because every outer fold fits each variant INNER_FOLDS times on 2 shared cores. A first
 * run over {1, 3, 10} chose 1, the grid's edge, in every outer fold, so the grid was moved to
 * {0.3, 1, 3} for the run that is reported (the first run's figures are not reported anywhere).
 * v3.2.0 doubled it: each penalty with and without the prefill kernel-family effect
 * (physics-terms.ts EffectOptions.mmKernels); 22 of 23 outer folds took the kernel families and 20
 * of 23 penalty 1 (2 took 3, 1 took 0.3), so v3.3.0 (issue 38) keeps the kernel families in every
 * variant, drops penalty 0.3 (the grid had to shrink: the A5 rows add five chips, and the machine is
 * shared) and crosses {1, 3} with the int8 kernels: quantized GPU prefill at the FP16 matrix rate
 * (v3.2.0) or at the int8 rate with a per-backend exponent for how far the FP16 rate binds
 * (EffectOptions.int8Kernels). Whether the int8 figures help is chosen inside each outer fold, never
 * on the held-out chip. The fit stops at a relative gain below 1e-6 (FIT_TOLERANCE).
 */
/**
 * The physics fit's stopping rule for the pretrained variants: with the A5 rows the default 1e-10
 * crawled to the 200-iteration cap (8 s a fit on the shared machine); 1e-6 reaches the same in-sample
 * MAPE to the fourth decimal (0.1507 / 0.1503 with and without int8 kernels) in 43–49 iterations.
 */
export const FIT_TOLERANCE = 1e-6
const CURRENT_CLASSES = { decode: 'current-build classes in decode', memory: 'current-build classes on memory terms' } as const
const physicsVariant = (currentClasses?: keyof typeof CURRENT_CLASSES) => ({
  label: `physics, effect penalty 1, prefill kernel families, int8 kernels${currentClasses ? `, ${CURRENT_CLASSES[currentClasses]}` : ''}`,
  options: { kind: 'physics' as const, name: 'pretrained-physics', physics: { lambda: 1, priorPrecision: 0.1, groupBalance: 0.5, mmKernels: true, moePrefill: true, tolerance: FIT_TOLERANCE, int8Kernels: true, ...(currentClasses ? { currentClasses } : {}) } },
})
/**
 * The grid of the nested selection. v3.6.0 dropped the variant that timed every GPU prefill at its FP16
 * rate: it contradicts the kernel facts (quantized prompts on integer kernels, v3.4.0–3.6.0), and the
 * int8 variants' binding exponent holds it as a special case (w = 1 where the FP16 rate is the lower).
 * The nvidia-gh100 fold was the one that still chose it (inner 37.6% against 38.8%, 38.1% and 38.1%), so the
 * drop was decided on that development fold; no other fold's choice or interval changes with it.
 */
export const VARIANTS: readonly { label: string; options: TrainOptions }[] = [
  physicsVariant(),
  physicsVariant('decode'),
  physicsVariant('memory'),
]
export const INNER_FOLDS = 4

export interface HeldOut {
  /** Clamped prediction per sample (sample order). */
  predicted: number[]
  /** Per sample: the effects the predicting model had never learned (an extrapolation). */
  unseen: string[][]
  /** Per sample: chips of its kind and build (`supportKey`) among the predicting model's training rows. */
  support: number[]
}

/** The support table of the rows `idx` (chips per `supportKey`). */
const supportOf = (samples: readonly TrainingSample[], rows: readonly PreparedRow[], idx: readonly number[]) => supportTable(idx.map((i) => ({ query: rows[i]!.query, chip: chipOf(samples[i]!.group ?? '') })))

/** Predictions of rows by a model trained on other rows, with what each extrapolated over. */
function predictWith(model: LearnedModel, rows: readonly PreparedRow[]): { predicted: number[]; unseen: string[][] } {
  const predicted = model.predictRows(rows)
  const state = model.json.physics as PhysicsState | undefined
  return { predicted, unseen: rows.map((r) => (state ? unseenEffects(state, r.query) : [])) }
}

/** Grouped folds over chips: chips sorted by name, dealt round-robin (deterministic). */
export function chipFolds(chips: readonly string[], k: number): Map<string, number> {
  return new Map([...chips].sort().map((c, i) => [c, i % k] as [string, number]))
}

/** Held-out predictions of `idx` by grouped k-fold over their chips, for one variant. */
function innerHeldOut(samples: readonly TrainingSample[], rows: readonly PreparedRow[], idx: readonly number[], options: TrainOptions): HeldOut {
  const chips = [...new Set(idx.map((i) => chipOf(samples[i]!.group ?? '')))]
  const fold = chipFolds(chips, INNER_FOLDS)
  const predicted = new Array<number>(samples.length).fill(Number.NaN)
  const unseen: string[][] = samples.map(() => [])
  const support = new Array<number>(samples.length).fill(0)
  for (let f = 0; f < INNER_FOLDS; f++) {
    const test = idx.filter((i) => fold.get(chipOf(samples[i]!.group ?? '')) === f)
    if (!test.length) continue
    const train = idx.filter((i) => fold.get(chipOf(samples[i]!.group ?? '')) !== f)
    const model = LearnedModel.train(train.map((i) => samples[i]!), options)
    const p = predictWith(model, test.map((i) => rows[i]!))
    const table = supportOf(samples, rows, train)
    test.forEach((i, j) => {
      predicted[i] = p.predicted[j]!
      unseen[i] = p.unseen[j]!
      support[i] = table[supportKey(rows[i]!.query)] ?? 0
    })
  }
  return { predicted, unseen, support }
}

const phaseOf = (r: PreparedRow) => r.query.phase
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)

/** Chip-averaged MAPE of held-out predictions, each phase weighing half: the selection score. */
export function chipScore(samples: readonly TrainingSample[], rows: readonly PreparedRow[], idx: readonly number[], predicted: readonly number[]): number {
  const per = (phase: string) => {
    const chips = new Map<string, number[]>()
    for (const i of idx) if (phaseOf(rows[i]!) === phase) (chips.get(chipOf(samples[i]!.group ?? '')) ?? chips.set(chipOf(samples[i]!.group ?? ''), []).get(chipOf(samples[i]!.group ?? ''))!).push(i)
    return mean([...chips.values()].map((ii) => mapeOf(ii.map((i) => predicted[i]!), ii.map((i) => rows[i]!.measured))))
  }
  return (per('decode') + per('prefill')) / 2
}

/** Held-out rows for the interval: regime (with the extrapolation flag), residual and bound. */
export function heldOutRowsOf(samples: readonly TrainingSample[], rows: readonly PreparedRow[], idx: readonly number[], h: HeldOut, withSupport = false): HeldOutRow[] {
  return idx.map((i) => ({
    group: chipOf(samples[i]!.group ?? ''), cls: hardwareClass(rows[i]!.query), regime: intervalRegime(rows[i]!.query, h.unseen[i]!.length > 0, withSupport ? h.support[i]! : undefined),
    phase: rows[i]!.query.phase, measured: rows[i]!.measured, predicted: h.predicted[i]!, bound: rows[i]!.bound,
  }))
}

export interface Selection {
  /** Index into VARIANTS of the chosen variant, and every variant's inner score. */
  chosen: number
  scores: number[]
  /** The interval calibrated on the chosen variant's inner held-out rows. */
  interval: IntervalState
}

/** The inner procedure on the rows `idx`: choose the variant and calibrate its interval, using those rows only. */
export function select(samples: readonly TrainingSample[], rows: readonly PreparedRow[], idx: readonly number[]): Selection {
  const inner = VARIANTS.map((v) => innerHeldOut(samples, rows, idx, v.options))
  const scores = inner.map((h) => chipScore(samples, rows, idx, h.predicted))
  const chosen = scores.indexOf(Math.min(...scores))
  // The interval: regimes with or without how close each row was to its model's training data
  // (`supportKey`), and the chip weighting, both chosen on these inner held-out rows (`chooseInterval`).
  const held = heldOutRowsOf(samples, rows, idx, inner[chosen]!)
  const heldNear = heldOutRowsOf(samples, rows, idx, inner[chosen]!, true)
  const how = chooseInterval(held, heldNear)
  return { chosen, scores, interval: how.support ? intervalState(heldNear, undefined, how.weighting, supportOf(samples, rows, idx)) : intervalState(held, undefined, how.weighting) }
}

export interface OuterResult {
  /** Outer held-out prediction, extrapolated effects and 90% interval per sample. */
  predicted: number[]
  unseen: string[][]
  low: number[]
  high: number[]
  /** Per held-out chip: the variant its inner selection chose. */
  chosen: Record<string, string>
  /** Held-out chips whose inner calibration took the support buckets (`chooseInterval`); absent before v3.4.0. */
  supportBuckets?: string[]
  chips: string[]
  seconds: number
}

/** The outer folds: per chip, the rows held out (every label of the chip) and the rows trained on. */
export function outerSplits(samples: readonly TrainingSample[]): { chip: string; train: number[]; test: number[] }[] {
  const chipOfRow = samples.map((s) => chipOf(s.group ?? ''))
  const all = samples.map((_, i) => i)
  return [...new Set(chipOfRow)].map((chip) => ({ chip, train: all.filter((i) => chipOfRow[i] !== chip), test: all.filter((i) => chipOfRow[i] === chip) }))
}

/** One outer fold's results: the held-out rows (sample indices) and, per row, what the chip got. */
export interface FoldResult { chip: string; test: number[]; predicted: number[]; unseen: string[][]; low: number[]; high: number[]; chosen: string; scores: number[]; supportBuckets: boolean }

/** One outer fold: the inner selection on the training chips, one fit, the held-out chip predicted with its interval. */
export function outerFold(samples: readonly TrainingSample[], rows: readonly PreparedRow[], split: { chip: string; train: number[]; test: number[] }): FoldResult {
  const sel = select(samples, rows, split.train)
  const model = LearnedModel.train(split.train.map((i) => samples[i]!), VARIANTS[sel.chosen]!.options)
  const p = predictWith(model, split.test.map((i) => rows[i]!))
  const iv = split.test.map((i, j) => {
    const r = rows[i]!
    const support = sel.interval.support ? (sel.interval.support[supportKey(r.query)] ?? 0) : undefined
    return intervalFor(p.predicted[j]!, r.bound, sel.interval[r.query.phase], sel.interval.level, scaleOf(sel.interval.scale, intervalRegime(r.query, p.unseen[j]!.length > 0, support), r.query.phase))
  })
  return { chip: split.chip, test: split.test, predicted: p.predicted, unseen: p.unseen, low: iv.map((x) => x.low), high: iv.map((x) => x.high), chosen: VARIANTS[sel.chosen]!.label, scores: sel.scores, supportBuckets: sel.interval.support !== undefined }
}

/** The outer folds' results in one per-sample result (folds in chip order). */
export function mergeFolds(n: number, folds: readonly FoldResult[], seconds: number): OuterResult {
  const out: OuterResult = { predicted: new Array(n).fill(Number.NaN), unseen: Array.from({ length: n }, () => []), low: new Array(n).fill(Number.NaN), high: new Array(n).fill(Number.NaN), chosen: {}, supportBuckets: folds.filter((f) => f.supportBuckets).map((f) => f.chip), chips: folds.map((f) => f.chip), seconds }
  for (const f of folds) {
    f.test.forEach((i, j) => {
      out.predicted[i] = f.predicted[j]!
      out.unseen[i] = f.unseen[j]!
      out.low[i] = f.low[j]!
      out.high[i] = f.high[j]!
    })
    out.chosen[f.chip] = f.chosen
  }
  return out
}

const foldLine = (f: FoldResult, t0: number) => `${f.chip}: ${f.chosen}${f.supportBuckets ? ', support buckets' : ''} (inner ${f.scores.map((s) => (s * 100).toFixed(1)).join(' / ')}), ${((Date.now() - t0) / 1000).toFixed(0)} s`

/** The nested leave-one-chip-out evaluation in this process (outer folds only are reported). */
export function nestedLeaveOneChipOut(samples: readonly TrainingSample[], log: (line: string) => void = () => {}): OuterResult {
  const t0 = Date.now()
  const rows = prepare(samples)
  const folds = outerSplits(samples).map((split) => {
    const f = outerFold(samples, rows, split)
    log(foldLine(f, t0))
    return f
  })
  return mergeFolds(samples.length, folds, (Date.now() - t0) / 1000)
}

export { foldLine }
