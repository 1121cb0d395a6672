/**
 * Learned throughput models (ridge or random forest) behind one interface. They predict the
 * log of the efficiency, measured ÷ roofline bound, from the engineered features of a query and
 * multiply back: the roofline carries the physics (bandwidth, size, format, batch), the model
 * learns how far real engines fall short of it. Every prediction is clamped by the bound.
 */
import { z } from 'zod'
import { KerneltuneError, parseWith, type Prediction } from '@kerneltune/core'
import type { TunerFeatures } from '@kerneltune/features'
import { DEFAULT_FOREST, fitForest, fitRidge, forestFromJSON, forestToJSON, predictRidge, type ForestOptions, type RidgeState } from './estimators.ts'
import { QUERY_FEATURE_NAMES, engineer, parseQuery, queryBound, queryFromFeatures, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'
import { PhysicsStateSchema, fitPhysics, physicsBreakdown, predictPhysics, unseenEffects, type PhysicsOptions, type PhysicsState } from './physics.ts'
import { PHYSICS_TERMS } from './physics-terms.ts'
import { IntervalStateSchema, intervalFor, intervalRegime, scaleOf, supportKey, type PredictionInterval } from './intervals.ts'

export const MODEL_FORMAT = 'kerneltune.throughput-model' as const
export const MODEL_VERSION = 1 as const
export const MODEL_KINDS = ['linear', 'forest', 'physics'] as const
export type LearnedKind = (typeof MODEL_KINDS)[number]

export interface TrainingSample {
  query: ThroughputQueryInput
  measuredTps: number
  /** Grouping key (e.g. the hardware id) for grouped cross-validation and calibration. */
  group?: string
  /** Where the row came from (file:line), recorded for provenance. */
  id?: string
}

export interface TrainOptions {
  kind?: LearnedKind
  /** Ridge penalty on standardised features (default 1). */
  lambda?: number
  forest?: Partial<ForestOptions>
  physics?: PhysicsOptions
  /** Label stored in predictions (default "linear" / "forest"). */
  name?: string
}

const RidgeSchema: z.ZodObject<{
  lambda: z.ZodNumber; mean: z.ZodArray<z.ZodNumber>; std: z.ZodArray<z.ZodNumber>; coef: z.ZodArray<z.ZodNumber>; intercept: z.ZodNumber
}> = z.object({ lambda: z.number(), mean: z.array(z.number()), std: z.array(z.number()), coef: z.array(z.number()), intercept: z.number() })

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const LearnedModelSchema: z.ZodObject<{
  format: z.ZodLiteral<typeof MODEL_FORMAT>
  version: z.ZodLiteral<typeof MODEL_VERSION>
  kind: z.ZodEnum<{ [K in (typeof MODEL_KINDS)[number]]: K }>
  name: z.ZodString
  target: z.ZodEnum<{ 'log-efficiency': 'log-efficiency'; 'physics-time': 'physics-time' }>
  featureNames: z.ZodArray<z.ZodString>
  ridge: z.ZodOptional<typeof RidgeSchema>
  physics: z.ZodOptional<typeof PhysicsStateSchema>
  interval: z.ZodOptional<typeof IntervalStateSchema>
  forest: z.ZodOptional<z.ZodObject<{
    options: z.ZodObject<{ nEstimators: z.ZodNumber; maxDepth: z.ZodNumber; minNumSamples: z.ZodNumber; maxFeatures: z.ZodNumber; seed: z.ZodNumber }>
    model: z.ZodRecord<z.ZodString, z.ZodUnknown>
  }>>
  mape: z.ZodNumber
  trainMape: z.ZodNumber
  sampleCount: z.ZodNumber
  importance: z.ZodArray<z.ZodTuple<[z.ZodString, z.ZodNumber], null>>
  meta: z.ZodDefault<z.ZodRecord<z.ZodString, z.ZodUnknown>>
}> = z.object({
  format: z.literal(MODEL_FORMAT),
  version: z.literal(MODEL_VERSION),
  kind: z.enum(MODEL_KINDS),
  name: z.string(),
  /** linear/forest: log(measured ÷ roofline bound); physics: time per step as a sum of physical terms. */
  target: z.enum(['log-efficiency', 'physics-time']),
  featureNames: z.array(z.string()),
  ridge: RidgeSchema.optional(),
  physics: PhysicsStateSchema.optional(),
  /** Split-conformal prediction interval (log-ratio quantiles per phase), when the trainer measured one. */
  interval: IntervalStateSchema.optional(),
  forest: z.object({ options: z.object({ nEstimators: z.number(), maxDepth: z.number(), minNumSamples: z.number(), maxFeatures: z.number(), seed: z.number() }), model: z.record(z.string(), z.unknown()) }).optional(),
  /** MAPE (fraction) used for confidence: cross-validated when known, else on the training rows. */
  mape: z.number().nonnegative(),
  trainMape: z.number().nonnegative(),
  sampleCount: z.number().int().nonnegative(),
  importance: z.array(z.tuple([z.string(), z.number()])),
  /** Free-form provenance (rows used, script version, seed, accuracy reports). */
  meta: z.record(z.string(), z.unknown()).default({}),
}).superRefine((m, ctx) => {
  if (m.kind === 'linear' && !m.ridge) ctx.addIssue({ code: 'custom', path: ['ridge'], message: 'a linear model needs its ridge coefficients' })
  if (m.kind === 'forest' && !m.forest) ctx.addIssue({ code: 'custom', path: ['forest'], message: 'a forest model needs its trees' })
  if (m.ridge && m.ridge.coef.length !== m.featureNames.length) ctx.addIssue({ code: 'custom', path: ['ridge', 'coef'], message: `expected ${m.featureNames.length} coefficients` })
  if (m.kind === 'physics' && !m.physics) ctx.addIssue({ code: 'custom', path: ['physics'], message: 'a physics model needs its fitted multipliers' })
  const names: readonly string[] = m.kind === 'physics' ? PHYSICS_TERMS : QUERY_FEATURE_NAMES
  if (m.featureNames.join() !== names.join()) ctx.addIssue({ code: 'custom', path: ['featureNames'], message: 'feature names do not match this version of @kerneltune/regressor' })
})
export type LearnedModelJson = z.output<typeof LearnedModelSchema>

/**
 * A prediction with its prediction interval, when the model carries one, and (physics models) the
 * effects it had to extrapolate over: keys such as `vendor:amd`, `class:amd-gpu`, `quant:IQ4_XS` or
 * `era:current:rocm` that no training row had. Absent when the query is inside what the data covers.
 */
export type IntervalPrediction = Prediction & { readonly interval?: PredictionInterval; readonly extrapolation?: readonly string[] }

export const mapeOf = (pred: readonly number[], truth: readonly number[]): number =>
  pred.reduce((s, p, i) => s + Math.abs(p - truth[i]!) / Math.max(truth[i]!, 1e-9), 0) / Math.max(pred.length, 1)

export class LearnedModel {
  readonly json: LearnedModelJson
  private readonly forest?: ReturnType<typeof forestFromJSON>

  private constructor(json: LearnedModelJson) {
    this.json = json
    if (json.kind === 'forest') this.forest = forestFromJSON(json.forest!.model)
  }

  get kind(): LearnedKind { return this.json.kind }
  get name(): string { return this.json.name }
  get mape(): number { return this.json.mape }

  /** Loads a saved model, checking it against the schema (INVALID_INPUT lists every problem). */
  static fromJSON(json: unknown): LearnedModel {
    return new LearnedModel(parseWith(LearnedModelSchema, json, 'throughput model'))
  }

  /** Trains on measured rows; fewer than 10 is INSUFFICIENT_DATA (upstream's limit). */
  static train(samples: readonly TrainingSample[], opts: TrainOptions = {}): LearnedModel {
    if (samples.length < 10) {
      throw new KerneltuneError('INSUFFICIENT_DATA', `Insufficient training data: ${samples.length} samples (need >= 10)`, { details: { count: samples.length } })
    }
    const rows = prepare(samples)
    const kind = opts.kind ?? 'linear'
    const X = rows.map((r) => r.x)
    const y = rows.map((r) => Math.log(r.measured / r.bound))
    const physics = kind === 'physics'
    const base = {
      format: MODEL_FORMAT, version: MODEL_VERSION, kind, name: opts.name ?? kind, target: physics ? 'physics-time' as const : 'log-efficiency' as const,
      featureNames: physics ? [...PHYSICS_TERMS] : [...QUERY_FEATURE_NAMES], mape: 0, trainMape: 0, sampleCount: rows.length, importance: [] as [string, number][], meta: {},
    }
    let json: LearnedModelJson
    if (physics) {
      const state = fitPhysics(rows.map((r) => ({ query: r.query, measured: r.measured, ...(r.group === undefined ? {} : { group: r.group }) })), opts.physics)
      json = { ...base, physics: state, importance: termShares(state, rows) }
    } else if (kind === 'linear') {
      json = { ...base, ridge: fitRidge(X, y, opts.lambda ?? 1) }
    } else {
      const options = { ...DEFAULT_FOREST, ...opts.forest }
      json = { ...base, forest: { options, model: forestToJSON(fitForest(X, y, options)) as Record<string, unknown> } }
    }
    const model = new LearnedModel(json)
    const train = mapeOf(model.predictRows(rows), rows.map((r) => r.measured))
    json.trainMape = train
    json.mape = train
    return model
  }

  /** Clamped tokens/s for prepared rows (internal, fast path for evaluation). */
  predictRows(rows: readonly PreparedRow[]): number[] {
    if (this.json.kind === 'physics') return rows.map((r) => Math.min(predictPhysics(this.json.physics as PhysicsState, r.query), r.bound))
    const out = this.rawLog(rows.map((r) => r.x))
    return out.map((z, i) => Math.min(rows[i]!.bound * Math.exp(z), rows[i]!.bound))
  }

  private rawLog(X: readonly (readonly number[])[]): number[] {
    if (this.json.kind === 'linear') return X.map((x) => predictRidge(this.json.ridge as RidgeState, x))
    return this.forest!.predict(X.map((x) => [...x]))
  }

  /** Predicts a query (plain units) or a 42-value feature vector (decoded as trueno's roofline does). */
  predict(input: ThroughputQueryInput | TunerFeatures | readonly number[]): IntervalPrediction {
    const q = toQuery(input)
    const bound = queryBound(q).boundTps
    const raw = this.json.kind === 'physics' ? predictPhysics(this.json.physics as PhysicsState, q) : bound * Math.exp(this.rawLog([engineer(q, bound)])[0]!)
    const capped = raw > bound
    const iv = this.json.interval
    const unseen = this.json.kind === 'physics' ? unseenEffects(this.json.physics as PhysicsState, q) : []
    return {
      kind: 'prediction', predictedTps: Math.min(raw, bound), rooflineTps: bound, capped, rawTps: raw,
      ...(iv ? { interval: intervalFor(Math.min(raw, bound), bound, iv[q.phase], iv.level, scaleOf(iv.scale, intervalRegime(q, unseen.length > 0, iv.support ? (iv.support[supportKey(q)] ?? 0) : undefined), q.phase)) } : {}),
      confidence: Math.max(1 - this.json.mape, 0.5) * (capped ? 0.9 : 1),
      topFeatures: [...this.json.importance].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([n, v]) => [n, v] as const),
      model: this.json.name,
      ...(unseen.length ? { extrapolation: unseen } : {}),
    }
  }

  /** A copy with other metadata, MAPE or importance (the model itself is unchanged). */
  with(patch: Partial<Pick<LearnedModelJson, 'mape' | 'importance' | 'meta' | 'name' | 'interval'>>): LearnedModel {
    return new LearnedModel({ ...this.json, ...patch })
  }

  toJSON(): LearnedModelJson {
    return this.json
  }
}

/**
 * A physics model's "importance": the mean share of each term in the step time over the training
 * rows (what dominates the predicted time), in place of a permutation importance over features
 * the model does not read.
 */
function termShares(state: PhysicsState, rows: readonly PreparedRow[]): [string, number][] {
  const sums = PHYSICS_TERMS.map(() => 0)
  for (const r of rows) {
    // The row's own multipliers (base and effects; "any." for the terms both phases share).
    const { seconds } = physicsBreakdown(state, r.query)
    const contrib = PHYSICS_TERMS.map((t) => seconds[t])
    const total = contrib.reduce((a, b) => a + b, 0) || 1
    contrib.forEach((c, k) => (sums[k]! += c / total / rows.length))
  }
  return PHYSICS_TERMS.map((t, k) => [t, sums[k]!] as [string, number])
}

export interface PreparedRow {
  query: ThroughputQuery
  x: number[]
  bound: number
  measured: number
  group?: string
}

/** Validates samples and computes their bounds and features once. */
export function prepare(samples: readonly TrainingSample[]): PreparedRow[] {
  return samples.map((s, i) => {
    if (!(s.measuredTps > 0) || !Number.isFinite(s.measuredTps)) {
      throw new KerneltuneError('INVALID_INPUT', `sample ${s.id ?? i}: measuredTps must be a positive number, got ${s.measuredTps}`)
    }
    const query = parseQuery(s.query)
    const bound = queryBound(query).boundTps
    const row: PreparedRow = { query, x: engineer(query, bound), bound, measured: s.measuredTps }
    if (s.group !== undefined) row.group = s.group
    return row
  })
}

function toQuery(input: ThroughputQueryInput | TunerFeatures | readonly number[]): ThroughputQuery {
  if (Array.isArray(input)) return queryFromFeatures(input as readonly number[])
  if (typeof input === 'object' && input !== null && 'quantOneHot' in input) return queryFromFeatures(input as TunerFeatures)
  return parseQuery(input)
}
