/**
 * @module @kerneltune/classifier
 * trueno's kernel rules (§A.5) and bottleneck rules (§A.6), a trainable random-forest kernel
 * classifier with the same output, and the BrickTuner recommender (§A.7): throughput, kernel,
 * bottleneck with explanation and action, overall confidence and suggested experiments.
 *
 * @example
 * ```ts
 * import { BrickTuner } from '@kerneltune/classifier'
 * import { featuresBuilder } from '@kerneltune/features'
 * const rec = new BrickTuner().recommend(featuresBuilder().modelParamsB(1.5).batchSize(4).quantType('Q4K').gpuMemBwGbs(1000).cudaGraphs(true).build())
 * console.log(rec.throughput.predictedTps, rec.kernel.topKernel, rec.bottleneck.class, rec.experimentText)
 * ```
 */
export {
  RECOMMENDED_ACTIONS, decodeBatchSeq, describeExperiment, ruleBottleneck, ruleKernel, suggestExperiments,
  type BottleneckPrediction, type ExperimentSuggestion, type KernelRecommendation,
} from './rules.ts'
export { KernelForest, KernelForestSchema, type KernelForestJson } from './forest-classifier.ts'
export { BrickTuner, BrickTunerSchema, TUNER_VERSION, type BrickTunerJson, type TunerRecommendation } from './brick-tuner.ts'
export { IDENTITY_CORRECTION, OnlineCorrectedModel, OnlineCorrectionLearner } from './online-correction.ts'
