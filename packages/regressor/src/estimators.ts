/**
 * The two learners behind `LearnedModel`: ridge regression solved in closed form with ml-matrix
 * ((XᵀX + λI)β = Xᵀy on standardised features, intercept unpenalised) and ml-random-forest's
 * regression forest. Both map a feature matrix to one number and serialise to plain JSON.
 */
import { Matrix, solve } from 'ml-matrix'
import { RandomForestRegression } from 'ml-random-forest'
import { z } from 'zod'
import { parseWith } from '@kerneltune/core'

export interface RidgeState {
  lambda: number
  mean: number[]
  std: number[]
  coef: number[]
  intercept: number
}

export function fitRidge(X: readonly (readonly number[])[], y: readonly number[], lambda: number): RidgeState {
  const n = X.length
  const d = X[0]?.length ?? 0
  const mean = new Array<number>(d).fill(0)
  const std = new Array<number>(d).fill(0)
  for (const row of X) row.forEach((v, j) => (mean[j]! += v / n))
  for (const row of X) row.forEach((v, j) => (std[j]! += (v - mean[j]!) ** 2 / n))
  for (let j = 0; j < d; j++) std[j] = Math.sqrt(std[j]!) || 1 // a constant column gets coefficient 0
  const Z = new Matrix(X.map((row) => row.map((v, j) => (v - mean[j]!) / std[j]!)))
  const ym = y.reduce((a, b) => a + b, 0) / n
  const yc = Matrix.columnVector(y.map((v) => v - ym))
  const A = Z.transpose().mmul(Z)
  for (let j = 0; j < d; j++) A.set(j, j, A.get(j, j) + lambda)
  const beta = solve(A, Z.transpose().mmul(yc)).getColumn(0)
  return { lambda, mean, std, coef: beta, intercept: ym }
}

export function predictRidge(s: RidgeState, x: readonly number[]): number {
  let out = s.intercept
  for (let j = 0; j < s.coef.length; j++) out += s.coef[j]! * ((x[j]! - s.mean[j]!) / s.std[j]!)
  return out
}

export interface ForestOptions {
  nEstimators: number
  maxDepth: number
  minNumSamples: number
  /** Fraction of features each tree sees. */
  maxFeatures: number
  seed: number
}

export const DEFAULT_FOREST: ForestOptions = { nEstimators: 100, maxDepth: 12, minNumSamples: 3, maxFeatures: 0.8, seed: 42 }

export function fitForest(X: readonly (readonly number[])[], y: readonly number[], o: ForestOptions): RandomForestRegression {
  const rf = new RandomForestRegression({
    nEstimators: o.nEstimators, maxFeatures: o.maxFeatures, replacement: false, useSampleBagging: true, noOOB: true,
    seed: o.seed, treeOptions: { maxDepth: o.maxDepth, minNumSamples: o.minNumSamples },
  })
  rf.train(X.map((r) => [...r]), [...y])
  return rf
}

/** The forest as plain JSON (ml-random-forest's own format), with float noise rounded off to keep assets small. */
export function forestToJSON(rf: RandomForestRegression): unknown {
  return JSON.parse(JSON.stringify(rf.toJSON(), (_k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(7)) : v)))
}

/**
 * ml-random-forest's saved regression forest, as far as `load` reads it. Its type names the trees
 * by their classes where the JSON holds their plain form, so only the outer shape is checked here
 * (load throws RangeError on another model's name; this says what was wrong as INVALID_INPUT).
 */
/** load's parameter (the package's type for it is not exported by name). */
type SavedForest = Parameters<typeof RandomForestRegression.load>[0]
const ForestModelSchema = z.looseObject({
  name: z.literal('RFRegression'),
  baseModel: z.looseObject({ n: z.number(), indexes: z.array(z.array(z.number())), estimators: z.array(z.record(z.string(), z.unknown())) }),
})

export function forestFromJSON(json: unknown): RandomForestRegression {
  const model = parseWith(ForestModelSchema, json, 'random forest model')
  return RandomForestRegression.load(model as unknown as SavedForest)
}
