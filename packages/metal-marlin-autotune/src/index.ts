/**
 * @module @kerneltune/metal-marlin-autotune
 * A mixed bit-width kernel autotuner with Metal Marlin's semantics (configs, lookup table,
 * selection order, online adaptation, JSON export/load), tuning real WGSL kernels from
 * `@kerneltune/gpu-kernels` instead of Metal ones. The benchmark function is injected.
 *
 * @example
 * ```ts
 * import { MixedBpwAutoTuner } from '@kerneltune/metal-marlin-autotune'
 * const tuner = MixedBpwAutoTuner.loadConfig(jsonText)
 * const pick = tuner.selectKernel(6, 4096, [2, 4])
 * console.log(pick?.config.kernel_name, pick?.method, pick?.distance)
 * ```
 */
export {
  BATCH_STRATEGIES,
  BIT_WIDTHS,
  DEFAULT_HISTORY_LENGTH,
  DEFAULT_SIMDGROUP_MAPPING,
  DEFAULT_TILE_SIZE_MAPPING,
  DEFAULT_TILE_SIZES,
  KERNEL_BASE_NAME,
  KERNEL_VARIANTS,
  MIN_ADAPTATION_SAMPLES,
  MIN_ONLINE_SAMPLES,
  SIMDGROUP_CONFIGS,
  type BatchStrategy,
  type BitWidth,
  type KernelVariant,
} from './constants.ts'
export {
  benchmarkResultToDict,
  configId,
  createBenchmarkResult,
  createKernelConfig,
  kernelConfigToDict,
  kernelNameFor,
  optimizedConfigId,
  optimizedFromResult,
  optimizedKey,
  parseConfigId,
  parseKernelName,
  type BenchmarkResult,
  type BenchmarkResultInput,
  type KernelConfig,
  type KernelConfigInput,
  type KernelRunDetails,
  type OptimizedConfig,
} from './kernel-config.ts'
export {
  compatSimdgroups,
  compatTileSizes,
  generateCompatConfigs,
  generateConfigs,
  recommendedFp32Acc,
  recommendedVariant,
  type CompatOptions,
  type GenerateOptions,
} from './config-generation.ts'
export {
  bitKey,
  bitTuple,
  countEntries,
  defaultConfig,
  findNearestKey,
  getEntry,
  parseBitKey,
  selectFromTable,
  setEntry,
  sortedBits,
  type DefaultMappings,
  type LookupTable,
  type Selection,
  type SelectionMethod,
} from './lookup.ts'
export { appendSample, decideAdaptation, latencyKey, rankContext, type Adaptation, type RankedKernel } from './adaptation.ts'
export { describeAdapter, detectDeviceFamily, deviceConfigFileName, deviceSlug, normalizeDeviceFamily, type DeviceProbe } from './device.ts'
export { fromExported, toExported, type ExportedConfig, type TunerState } from './serialization.ts'
export {
  benchmarkMixed,
  benchmarkOne,
  estimateMemoryBytes,
  failedResult,
  rowThroughput,
  type BenchmarkOptions,
  type LayerBenchmarker,
} from './benchmark.ts'
export { bestOf, getOptimal, type AutotuneStatistics, type BenchmarkAllOptions, type BenchmarkLayerOptions, type CellResult } from './tuner-support.ts'
export { confirmCell, type CellConfirmation, type ConfirmCellInput } from './confirm-cell.ts'
export { MixedBpwAutoTuner, type TunerOptions } from './tuner.ts'
export { QUICK_JOB, autotuneJobFor, type AutotuneRequest } from './job-request.ts'
