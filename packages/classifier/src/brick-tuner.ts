/**
 * BrickTuner (§A.7): one call, `recommend(features)`, returns predicted throughput (clamped by the
 * roofline), the kernel, the bottleneck with its explanation and action, the overall confidence
 * (mean of the three) and the suggested experiments with their display strings. The throughput
 * model is the pretrained one by default (trueno's heuristic with `{ throughput: 'heuristic' }`);
 * the kernel comes from the rules unless a trained KernelForest is attached. JSON save/load is
 * checked by a zod schema.
 */
import { z } from 'zod'
import { parseWith, type Prediction } from '@kerneltune/core'
import { heuristicModel, LearnedModel, pretrainedModel, type HeuristicModel, type OnlineLearner } from '@kerneltune/regressor'
import type { TunerFeatures } from '@kerneltune/features'
import { KernelForest } from './forest-classifier.ts'
import { describeExperiment, ruleBottleneck, ruleKernel, suggestExperiments, type BottleneckPrediction, type ExperimentSuggestion, type KernelRecommendation } from './rules.ts'

export const TUNER_VERSION = '1.0.0'

export interface TunerRecommendation {
  throughput: Prediction
  kernel: KernelRecommendation
  bottleneck: BottleneckPrediction
  modelVersion: string
  confidenceOverall: number
  suggestedExperiments: ExperimentSuggestion[]
  /** The display strings of `suggestedExperiments`, in order. */
  experimentText: string[]
}

export const BrickTunerSchema = z.object({
  format: z.literal('kerneltune.brick-tuner'),
  version: z.string(),
  trainedAt: z.string(),
  sampleCount: z.number().int().nonnegative(),
  throughput: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('heuristic'), weights: z.array(z.number()).length(43), mape: z.number() }),
    z.object({ kind: z.literal('learned'), model: z.unknown() }),
  ]),
  kernel: z.unknown().optional(),
})
export type BrickTunerJson = z.output<typeof BrickTunerSchema>

type Throughput = HeuristicModel | LearnedModel

export class BrickTuner {
  throughputModel: Throughput
  kernelModel?: KernelForest
  version: string
  trainedAt: string
  sampleCount: number

  constructor(opts: { throughput?: Throughput | 'heuristic' | 'pretrained'; kernel?: KernelForest } = {}) {
    const t = opts.throughput ?? 'pretrained'
    this.throughputModel = t === 'heuristic' ? heuristicModel() : t === 'pretrained' ? pretrainedModel() : t
    if (opts.kernel) this.kernelModel = opts.kernel
    this.version = t === 'pretrained' ? `${TUNER_VERSION}-pretrained` : TUNER_VERSION
    this.trainedAt = '0'
    this.sampleCount = this.throughputModel instanceof LearnedModel ? this.throughputModel.json.sampleCount : 0
  }

  recommend(f: TunerFeatures): TunerRecommendation {
    const throughput = this.throughputModel.predict(f)
    const kernel = this.kernelModel ? this.kernelModel.predict(f) : ruleKernel(f)
    const bottleneck = ruleBottleneck(f)
    const suggestedExperiments = suggestExperiments(f, bottleneck.class)
    return {
      throughput, kernel, bottleneck, modelVersion: this.version,
      confidenceOverall: (throughput.confidence + kernel.confidence + bottleneck.confidence) / 3,
      suggestedExperiments, experimentText: suggestedExperiments.map(describeExperiment),
    }
  }

  /**
   * Copies an OnlineLearner's weights into a heuristic throughput model (the learner works on the
   * heuristic's ×1000 scale). No-op without updates; version "1.0.0-online-{n}".
   */
  applyOnlineUpdates(learner: OnlineLearner): void {
    const n = learner.numUpdates()
    if (n === 0) return
    this.throughputModel = heuristicModel({ weights: learner.weights(), mape: this.throughputModel.mape, sampleCount: this.sampleCount + n })
    this.sampleCount += n
    this.version = `${TUNER_VERSION}-online-${n}`
  }

  toJSON(): BrickTunerJson {
    const m = this.throughputModel
    return {
      format: 'kerneltune.brick-tuner', version: this.version, trainedAt: this.trainedAt, sampleCount: this.sampleCount,
      throughput: m instanceof LearnedModel ? { kind: 'learned', model: m.toJSON() } : { kind: 'heuristic', weights: [...m.weights], mape: m.mape },
      ...(this.kernelModel ? { kernel: this.kernelModel.toJSON() } : {}),
    }
  }

  static fromJSON(json: unknown): BrickTuner {
    const j = parseWith(BrickTunerSchema, json, 'brick tuner')
    const throughput = j.throughput.kind === 'learned' ? LearnedModel.fromJSON(j.throughput.model) : heuristicModel({ weights: j.throughput.weights, mape: j.throughput.mape, sampleCount: j.sampleCount })
    const t = new BrickTuner({ throughput, ...(j.kernel ? { kernel: KernelForest.fromJSON(j.kernel) } : {}) })
    t.version = j.version
    t.trainedAt = j.trainedAt
    t.sampleCount = j.sampleCount
    return t
  }
}
