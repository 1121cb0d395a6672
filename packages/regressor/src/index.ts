/**
 * @module @kerneltune/regressor
 * Throughput prediction in tokens/s, always clamped by the roofline and saying so: trueno's
 * heuristic model (§A.4, exact), ridge, random-forest and physics models with one interface
 * (train, predict, cross-validated MAPE, permutation importance, versioned JSON), a pretrained
 * physics model fitted on public llama.cpp measurements whose predictions carry a 90%
 * split-conformal interval, per-hardware calibration and an online learner.
 *
 * @example
 * ```ts
 * import { pretrainedModel, heuristicModel } from '@kerneltune/regressor'
 * import { featuresBuilder } from '@kerneltune/features'
 * const p = pretrainedModel().predict({ paramsB: 8, quant: 'Q4_K_M', memBwGbs: 1008, tflops: 330, batch: 1, phase: 'decode' })
 * console.log(p.predictedTps, p.rooflineTps, p.capped, p.confidence)
 * const h = heuristicModel().predict(featuresBuilder().modelParamsB(7).quantType('Q4K').gpuMemBwGbs(1008).build())
 * console.log(h.predictedTps) // 256 (clamped by trueno's bound)
 * ```
 */
export { HEURISTIC_IMPORTANCE, heuristicModel, heuristicWeights, type HeuristicModel } from './heuristic.ts'
export {
  BACKEND_NAMES, CPU_INT8_SPEEDUP, QUERY_FEATURE_NAMES, ThroughputQuerySchema, VENDOR_NAMES, weightBytesPerParam, attendedContext, attnFlopsPerToken, engineer, featuresFromQuery, kvBytesPerToken, matmulFlops, meanContext,
  moeWeightCoverage, parseQuery, queryBound, queryFromFeatures,
  type BackendName, type QueryBound, type ThroughputQuery, type ThroughputQueryInput,
} from './query.ts'
export { chipGroups, chipOf } from './chips.ts'
export {
  LearnedModel, LearnedModelSchema, MODEL_FORMAT, MODEL_KINDS, MODEL_VERSION, mapeOf, prepare,
  type IntervalPrediction, type LearnedKind, type LearnedModelJson, type PreparedRow, type TrainOptions, type TrainingSample,
} from './learned.ts'
export { crossValidate, leaveOneGroupOut, permutationImportance, seededRandom, shuffled, trainEvaluated, type CvResult } from './evaluate.ts'
export { PhysicsStateSchema, fitPhysics, physicsBreakdown, predictPhysics, unseenEffects, type PhysicsOptions, type PhysicsRow, type PhysicsState } from './physics.ts'
export { PHYSICS_TERMS, backendOf, baseName, dequantBlas, effectCoef, effectKeys, hardwareClass, int8Binds, int8KernelTops, isLegacy, kernelFlops, layersOf, mmqDecode, stepTerms, unitClockRate, vulkanMatrixUnits, type EffectOptions, type PhysicsTerm, type StepTerms } from './physics-terms.ts'
export {
  CHIP_WEIGHTINGS, COVERAGE_BAND, INTERVAL_LEVEL, IntervalScaleSchema, IntervalStateSchema, SCALE_SHRINK, chooseInterval, chooseWeighting, supportBucket, supportKey, supportTable, conformalQuantiles, weightedConformalQuantiles, coverageOfRows, heldOutCoverage, heldOutIntervals, intervalFor, intervalRegime, intervalScale, intervalState, scaleOf,
  type CoverageReport, type HeldOutRow, type IntervalScale, type IntervalState, type PredictionInterval,
} from './intervals.ts'
export { DEFAULT_FOREST, type ForestOptions, type RidgeState } from './estimators.ts'
export { pretrainedInfo, pretrainedModel } from './pretrained.ts'
export { CalibratedModel, CorrectionsSchema, calibrate, hardwareKey, type CalibrationResult, type LocalMeasurement } from './calibrate.ts'
export { OnlineLearner, TRUENO_PRETRAINED_WEIGHTS, type OnlineLearnerOptions } from './online.ts'
export {
  CalibratedFileSchema, MIN_CALIBRATION_POINTS, calibrateRows, calibratedFile, correctionsOf, fitRows, hardwareLabel, learnedFromFile, minTrainingRows, tooFewPerHardware,
  type CalibratedFile, type FitRowsOptions, type HardwareCalibration, type HardwareCv, type RowsCalibration, type RowsFit,
} from './fit-rows.ts'
export { extrapolationNote, predictLine, predictorFor, targetQuery, versionOf, type Predictor, type QueryTarget } from './predictor.ts'
export { checkRow, detectFormat, KERNEL_KEYS, kernelFiguresQuery, MEASUREMENT_ROW_KEYS, parseRows, queryFromRow, type MeasuredRow, type ReadRows, type RowProblem } from './measurement-rows.ts'
