/**
 * @module @kerneltune/features
 * trueno's 42-value feature vector (model, runtime, quantization, kernel, hardware), with the
 * upstream builder semantics, validation and enums; model presets, a Hugging Face config.json
 * reader and a GGUF metadata reader; and a table of hardware presets with their sources.
 * Machine probing and file reading live in `@kerneltune/features/node`.
 *
 * @example
 * ```ts
 * import { featuresFrom, getHardwarePreset, modelSpecFromPreset, toVector, validate } from '@kerneltune/features'
 * const f = featuresFrom({
 *   model: modelSpecFromPreset('llama-3-8b', 'Q4_K'),
 *   hardware: getHardwarePreset('h100-sxm'),
 *   workload: { batch: 4 },
 * })
 * validate(f)
 * console.log(toVector(f).length) // 42
 * ```
 */
export {
  DEFAULT_KERNEL,
  DEFAULT_TRUENO_QUANT,
  GGUF_TO_TRUENO,
  KERNEL_TYPES,
  TRUENO_QUANT_BYTES,
  TRUENO_QUANT_TYPES,
  TRUENO_TO_GGUF,
  isExactTruenoQuant,
  kernelFromIndex,
  toTruenoQuant,
  truenoQuantBytes,
  truenoQuantFromIndex,
  type KernelTypeName,
  type TruenoQuant,
} from './quant.ts'
export {
  DERIVED_OFFSET,
  DIM,
  FEATURE_NAMES,
  HARDWARE_OFFSET,
  KERNEL_OFFSET,
  NUM_KERNELS,
  NUM_QUANT,
  QUANT_OFFSET,
  VALIDATION_MESSAGES,
  argmaxLast,
  findProblem,
  fromVector,
  namedVector,
  toVector,
  validate,
  type TunerFeatures,
  type ValidationProblem,
} from './tuner-features.ts'
export {
  DEFAULT_BYTES_PER_PARAM,
  F32_EPSILON,
  HARDWARE_DEFAULTS,
  TunerFeaturesBuilder,
  arithmeticIntensityOf,
  clamp01,
  denormParams,
  featuresBuilder,
  normParams,
  type RawFeatureInputs,
} from './builder.ts'
export {
  DEFAULT_RUN_CONFIG,
  ENV_VARS,
  builderFrom,
  featuresFrom,
  featuresFromRunConfig,
  fromEnv,
  type FeatureSources,
  type RunConfig,
} from './from-spec.ts'
export {
  HARDWARE_PRESETS,
  UNSUPPORTED_HARDWARE_LABELS,
  findHardwarePreset,
  getHardwarePreset,
  listHardwarePresets,
  normalizeHardwareLabel,
  parseDeviceCount,
  requireHardwarePreset,
  usualBackend,
} from './hardware/presets.ts'
export type { HardwareBackend, HardwarePreset, KernelFigures } from './hardware/types.ts'
export { kernelFiguresOf } from './hardware/kernel-figures.ts'
export { partOf, type PartFigures } from './hardware/define.ts'
export { countParams, type ParamCount, type TransformerShape } from './model/param-count.ts'
export {
  SUPPORTED_MODEL_TYPES,
  fromModelConfig,
  modelFromShape,
  shapeFromConfig,
  type ModelFromConfig,
} from './model/config.ts'
export {
  MODEL_PRESETS,
  getModelPreset,
  listModelPresets,
  modelSpecFromPreset,
  type ModelPreset,
} from './model/presets.ts'
export {
  fromGgufBytes,
  fromGgufMetadata,
  ggmlTypeName,
  ggufFileTypeName,
  parseGguf,
  type ByteSource,
  type GgufTensorSummary,
  type ModelFromGguf,
} from './model/gguf.ts'
