/**
 * A trainable kernel classifier with the rule classifier's output (top kernel, confidence,
 * alternatives): ml-random-forest's classification forest over the 42-value vector. Confidence is
 * the share of trees voting for the top kernel; alternatives are the next kernels by votes.
 */
import { z } from 'zod'
import { KERNEL_TYPES, KerneltuneError, parseWith, type KernelTypeName } from '@kerneltune/core'
import { DIM, toVector, type TunerFeatures } from '@kerneltune/features'
import { RandomForestClassifier } from 'ml-random-forest'
import type { KernelRecommendation } from './rules.ts'

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const KernelForestSchema: z.ZodObject<{
  format: z.ZodLiteral<'kerneltune.kernel-classifier'>
  version: z.ZodLiteral<1>
  nEstimators: z.ZodNumber
  seed: z.ZodNumber
  model: z.ZodRecord<z.ZodString, z.ZodUnknown>
}> = z.object({
  format: z.literal('kerneltune.kernel-classifier'),
  version: z.literal(1),
  nEstimators: z.number().int().positive(),
  seed: z.number().int(),
  model: z.record(z.string(), z.unknown()),
})
export type KernelForestJson = z.output<typeof KernelForestSchema>

export class KernelForest {
  private readonly rf: RandomForestClassifier
  private readonly json: KernelForestJson

  private constructor(rf: RandomForestClassifier, json: KernelForestJson) {
    this.rf = rf
    this.json = json
  }

  /** Trains on (features, kernel) pairs; fewer than 10 is INSUFFICIENT_DATA. */
  static train(data: readonly { features: TunerFeatures | readonly number[]; kernel: KernelTypeName }[], opts: { nEstimators?: number; seed?: number; maxDepth?: number } = {}): KernelForest {
    if (data.length < 10) throw new KerneltuneError('INSUFFICIENT_DATA', `Insufficient training data: ${data.length} samples (need >= 10)`)
    const X = data.map((d) => [...(Array.isArray(d.features) ? (d.features as number[]) : toVector(d.features as TunerFeatures))])
    if (X.some((x) => x.length !== DIM)) throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: vectors must have ${DIM} values`)
    const y = data.map((d) => KERNEL_TYPES.indexOf(d.kernel))
    const nEstimators = opts.nEstimators ?? 50
    const seed = opts.seed ?? 42
    const rf = new RandomForestClassifier({ nEstimators, seed, maxFeatures: 0.8, replacement: false, useSampleBagging: true, noOOB: true, treeOptions: { maxDepth: opts.maxDepth ?? 10 } })
    rf.train(X, y)
    const json: KernelForestJson = { format: 'kerneltune.kernel-classifier', version: 1, nEstimators, seed, model: JSON.parse(JSON.stringify(rf.toJSON())) }
    return new KernelForest(rf, json)
  }

  static fromJSON(json: unknown): KernelForest {
    const j = parseWith(KernelForestSchema, json, 'kernel classifier')
    return new KernelForest(RandomForestClassifier.load(classifierModel(j.model)), j)
  }

  toJSON(): KernelForestJson {
    return this.json
  }

  predict(f: TunerFeatures | readonly number[]): KernelRecommendation {
    const x = [...(Array.isArray(f) ? (f as number[]) : toVector(f as TunerFeatures))]
    const votes = this.rf.predictionValues([x]).getRow(0)
    const counts = new Map<number, number>()
    for (const v of votes) counts.set(v, (counts.get(v) ?? 0) + 1)
    const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([k, n]) => [KERNEL_TYPES[k] ?? 'Unknown', n / votes.length] as [KernelTypeName, number])
    return { topKernel: ranked[0]![0], confidence: ranked[0]![1], alternatives: ranked.slice(1, 3) }
  }
}

/**
 * ml-random-forest's saved classification forest, as far as `load` reads it. Its type names the
 * trees by their classes where the JSON holds their plain form, so only the outer shape is checked
 * (load throws RangeError on another model's name; this says what was wrong as INVALID_INPUT).
 */
/** load's parameter (the package's type for it is not exported by name). */
type SavedForest = Parameters<typeof RandomForestClassifier.load>[0]
const ForestModelSchema = z.looseObject({
  name: z.literal('RFClassifier'),
  baseModel: z.looseObject({ n: z.number(), indexes: z.array(z.array(z.number())), estimators: z.array(z.record(z.string(), z.unknown())) }),
})

function classifierModel(json: unknown): SavedForest {
  return parseWith(ForestModelSchema, json, 'kernel classifier model') as unknown as SavedForest
}
