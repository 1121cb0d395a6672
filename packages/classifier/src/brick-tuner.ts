/**
 * BrickTuner (§A.7): one call, `recommend(features)`, returns predicted throughput (clamped by the
 * roofline), the kernel, the bottleneck with its explanation and action, the overall confidence
 * (mean of the three) and the suggested experiments with their display strings. The throughput
 * model is the pretrained one by default (trueno's heuristic with `{ throughput: 'heuristic' }`);
 * the kernel comes from the rules unless a trained KernelForest is attached. JSON save/load is
 * checked by a zod schema. Online learning starts from the tuner's own model (`onlineLearner()`),
 * as upstream: the heuristic's weights seed trueno's OnlineLearner; a learned model gets an
 * online multiplicative correction that starts at 1 (online-correction.ts).
 */
import { z } from 'zod'
import { KerneltuneError, parseWith, type Prediction } from '@kerneltune/core'
import { heuristicModel, LearnedModel, OnlineLearner, pretrainedModel, type HeuristicModel, type OnlineLearnerOptions } from '@kerneltune/regressor'
import type { TunerFeatures } from '@kerneltune/features'
import { KernelForest } from './forest-classifier.ts'
import { OnlineCorrectedModel, OnlineCorrectionLearner } from './online-correction.ts'
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

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const BrickTunerSchema: z.ZodObject<{
  format: z.ZodLiteral<'kerneltune.brick-tuner'>
  version: z.ZodString
  trainedAt: z.ZodString
  sampleCount: z.ZodNumber
  throughput: z.ZodDiscriminatedUnion<[
    z.ZodObject<{ kind: z.ZodLiteral<'heuristic'>; weights: z.ZodArray<z.ZodNumber>; mape: z.ZodNumber }>,
    z.ZodObject<{ kind: z.ZodLiteral<'learned'>; model: z.ZodUnknown }>,
    z.ZodObject<{ kind: z.ZodLiteral<'online'>; model: z.ZodUnknown; correction: z.ZodArray<z.ZodNumber>; updates: z.ZodNumber }>,
  ], 'kind'>
  kernel: z.ZodOptional<z.ZodUnknown>
}> = z.object({
  format: z.literal('kerneltune.brick-tuner'),
  version: z.string(),
  trainedAt: z.string(),
  sampleCount: z.number().int().nonnegative(),
  throughput: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('heuristic'), weights: z.array(z.number()).length(43), mape: z.number() }),
    z.object({ kind: z.literal('learned'), model: z.unknown() }),
    z.object({ kind: z.literal('online'), model: z.unknown(), correction: z.array(z.number()).length(43), updates: z.number().int().nonnegative() }),
  ]),
  kernel: z.unknown().optional(),
})
export type BrickTunerJson = z.output<typeof BrickTunerSchema>

type Throughput = HeuristicModel | LearnedModel | OnlineCorrectedModel

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

  /**
   * `throughput`, when given, is a prediction made elsewhere from more than the feature vector
   * holds (the regressor's full query: the vector saturates bandwidth and TFLOPS); it stands in
   * for the tuner's own and enters the overall confidence.
   */
  recommend(f: TunerFeatures, throughput: Prediction = this.throughputModel.predict(f)): TunerRecommendation {
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
   * `online_learner()`: a learner that starts from this tuner's own model. For the heuristic it is
   * trueno's OnlineLearner seeded with the heuristic's weights; for a learned model, a
   * correction learner whose correction starts at 1 (or at the one already applied).
   */
  onlineLearner(opts: Omit<OnlineLearnerOptions, 'weights'> = {}): OnlineLearner | OnlineCorrectionLearner {
    const m = this.throughputModel
    if (m instanceof LearnedModel) return new OnlineCorrectionLearner(m, opts)
    if (m instanceof OnlineCorrectedModel) return new OnlineCorrectionLearner(m.base, { ...opts, correction: m.correction, updates: m.updates })
    return new OnlineLearner({ ...opts, weights: m.weights })
  }

  /**
   * Applies what a learner from `onlineLearner()` learned: the heuristic takes its weights (the
   * learner works on the heuristic's ×1000 scale), a learned model its correction. No-op without
   * updates; version "1.0.0-online-{n}". A plain OnlineLearner on a tuner with a learned model is
   * refused: it starts from trueno's default weights, not from the model, and would replace it.
   */
  applyOnlineUpdates(learner: OnlineLearner | OnlineCorrectionLearner): void {
    const n = learner.numUpdates()
    if (n === 0) return
    const m = this.throughputModel
    if (learner instanceof OnlineCorrectionLearner) {
      const base = m instanceof OnlineCorrectedModel ? m.base : m
      if (learner.base !== base) {
        throw new KerneltuneError('INVALID_INPUT', 'this online learner was made for another throughput model; take it from this tuner with tuner.onlineLearner()')
      }
      this.throughputModel = learner.model()
    } else {
      if (m instanceof LearnedModel || m instanceof OnlineCorrectedModel) {
        throw new KerneltuneError(
          'INVALID_INPUT',
          `this tuner's throughput model is a learned model (${m instanceof LearnedModel ? m.json.name : m.base.json.name}), not the heuristic: an OnlineLearner starts from trueno's default weights and would replace it; learn with tuner.onlineLearner(), which starts from the model`,
        )
      }
      this.throughputModel = heuristicModel({ weights: learner.weights(), mape: m.mape, sampleCount: this.sampleCount + n })
    }
    this.sampleCount += n
    this.version = `${TUNER_VERSION}-online-${n}`
  }

  toJSON(): BrickTunerJson {
    const m = this.throughputModel
    return {
      format: 'kerneltune.brick-tuner', version: this.version, trainedAt: this.trainedAt, sampleCount: this.sampleCount,
      throughput: m instanceof LearnedModel ? { kind: 'learned', model: m.toJSON() }
        : m instanceof OnlineCorrectedModel ? { kind: 'online', model: m.base.toJSON(), correction: [...m.correction], updates: m.updates }
          : { kind: 'heuristic', weights: [...m.weights], mape: m.mape },
      ...(this.kernelModel ? { kernel: this.kernelModel.toJSON() } : {}),
    }
  }

  static fromJSON(json: unknown): BrickTuner {
    const j = parseWith(BrickTunerSchema, json, 'brick tuner')
    const tj = j.throughput
    const throughput = tj.kind === 'learned' ? LearnedModel.fromJSON(tj.model)
      : tj.kind === 'online' ? new OnlineCorrectedModel(LearnedModel.fromJSON(tj.model), tj.correction, tj.updates)
        : heuristicModel({ weights: tj.weights, mape: tj.mape, sampleCount: j.sampleCount })
    const t = new BrickTuner({ throughput, ...(j.kernel ? { kernel: KernelForest.fromJSON(j.kernel) } : {}) })
    t.version = j.version
    t.trainedAt = j.trainedAt
    t.sampleCount = j.sampleCount
    return t
  }
}
