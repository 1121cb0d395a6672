/**
 * Honest accuracy: k-fold and leave-one-group-out cross-validated MAPE (each row predicted by a
 * model that never saw it, or never saw its group, e.g. its hardware), and permutation feature
 * importance (how much MAPE grows when one feature's column is shuffled).
 */
import { KerneltuneError, mulberry32 } from '@kerneltune/core'
import { LearnedModel, mapeOf, prepare, type PreparedRow, type TrainOptions, type TrainingSample } from './learned.ts'
import { QUERY_FEATURE_NAMES } from './query.ts'

/** A seeded generator (mulberry32) for fold assignment and permutations. */
export const seededRandom = mulberry32

export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

export interface CvResult {
  /** Mean absolute percentage error over every held-out row (fraction). */
  mape: number
  /** Held-out predictions, in the order of the input samples. */
  predictions: number[]
  folds: number
}

/**
 * k-fold cross-validated MAPE with a seeded fold assignment. `onFold` hears each fold done (a
 * forest takes seconds to minutes per fold, enough for a caller to show progress).
 */
export function crossValidate(samples: readonly TrainingSample[], opts: TrainOptions & { k?: number; seed?: number; onFold?: (done: number) => void } = {}): CvResult {
  const k = opts.k ?? 5
  if (samples.length < 2 * k) throw new KerneltuneError('INSUFFICIENT_DATA', `Insufficient training data: ${samples.length} samples for ${k}-fold cross-validation (need >= ${2 * k})`)
  const order = shuffled(samples.map((_, i) => i), seededRandom(opts.seed ?? 1))
  const fold = new Array<number>(samples.length)
  order.forEach((idx, pos) => (fold[idx] = pos % k))
  return heldOut(samples, fold, k, opts, opts.onFold)
}

/** Leave-one-group-out: each group (e.g. hardware) is predicted by a model trained on the others. */
export function leaveOneGroupOut(samples: readonly TrainingSample[], opts: TrainOptions = {}): CvResult & { byGroup: Record<string, { mape: number; count: number }> } {
  const groups = [...new Set(samples.map((s) => s.group ?? ''))]
  if (groups.length < 2) throw new KerneltuneError('INSUFFICIENT_DATA', 'leave-one-group-out needs at least two groups')
  const fold = samples.map((s) => groups.indexOf(s.group ?? ''))
  const r = heldOut(samples, fold, groups.length, opts)
  const byGroup: Record<string, { mape: number; count: number }> = {}
  groups.forEach((g, gi) => {
    const idx = fold.flatMap((f, i) => (f === gi ? [i] : []))
    byGroup[g] = { mape: mapeOf(idx.map((i) => r.predictions[i]!), idx.map((i) => samples[i]!.measuredTps)), count: idx.length }
  })
  return { ...r, byGroup }
}

function heldOut(samples: readonly TrainingSample[], fold: readonly number[], k: number, opts: TrainOptions, onFold?: (done: number) => void): CvResult {
  const rows = prepare(samples)
  const predictions = new Array<number>(samples.length).fill(Number.NaN)
  for (let f = 0; f < k; f++) {
    const train = samples.filter((_, i) => fold[i] !== f)
    const testIdx = fold.flatMap((g, i) => (g === f ? [i] : []))
    if (testIdx.length > 0) {
      const p = LearnedModel.train(train, opts).predictRows(testIdx.map((i) => rows[i]!))
      testIdx.forEach((i, j) => (predictions[i] = p[j]!))
    }
    onFold?.(f + 1)
  }
  return { mape: mapeOf(predictions, samples.map((s) => s.measuredTps)), predictions, folds: k }
}

/**
 * Permutation importance on the given rows: MAPE with one feature column shuffled minus the
 * baseline MAPE, per feature (larger = the model relies on it more). Seeded; `repeats` averages.
 */
export function permutationImportance(model: LearnedModel, samples: readonly TrainingSample[], opts: { seed?: number; repeats?: number } = {}): [string, number][] {
  const rows = prepare(samples)
  const truth = rows.map((r) => r.measured)
  const base = mapeOf(model.predictRows(rows), truth)
  const rand = seededRandom(opts.seed ?? 7)
  const repeats = opts.repeats ?? 1
  return QUERY_FEATURE_NAMES.map((name, j) => {
    let sum = 0
    for (let r = 0; r < repeats; r++) {
      const col = shuffled(rows.map((row) => row.x[j]!), rand)
      const permuted: PreparedRow[] = rows.map((row, i) => ({ ...row, x: row.x.map((v, jj) => (jj === j ? col[i]! : v)) }))
      sum += mapeOf(model.predictRows(permuted), truth) - base
    }
    return [name, sum / repeats] as [string, number]
  })
}

/** Trains, then attaches k-fold CV MAPE (used for confidence) and permutation importance. */
export function trainEvaluated(samples: readonly TrainingSample[], opts: TrainOptions & { k?: number; seed?: number } = {}): { model: LearnedModel; cv: CvResult } {
  const cv = crossValidate(samples, opts)
  const model = LearnedModel.train(samples, opts)
  const importance = permutationImportance(model, samples, { seed: opts.seed ?? 7 })
  return { model: model.with({ mape: cv.mape, importance, meta: { ...model.json.meta, cvMape: cv.mape, cvFolds: cv.folds } }), cv }
}
