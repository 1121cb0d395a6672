/**
 * @module @kerneltune/metal-marlin-autotune/webgpu
 * The real-kernel side: a `LayerBenchmarker` over `@kerneltune/gpu-kernels` on WebGPU, and the
 * JSON job the CLI runs under Deno. Separate from the main entry so that pure-logic users do not
 * load kernel code.
 *
 * @example
 * ```ts
 * import { openGpu } from '@kerneltune/gpu-kernels'
 * import { MixedBpwAutoTuner } from '@kerneltune/metal-marlin-autotune'
 * import { createGpuBenchmarker } from '@kerneltune/metal-marlin-autotune/webgpu'
 * const tuner = new MixedBpwAutoTuner({ benchmarker: createGpuBenchmarker(await openGpu()) })
 * await tuner.benchmarkAll({ bitSets: [[4]], batchSizes: [1], hiddenSizes: [256] })
 * ```
 */
export { createGpuBenchmarker, mapConfig, type GpuBenchmarkerOptions } from './gpu-benchmarker.ts'
export { jobConfigs, runAutotuneJob, totalConfigs, type AutotuneEvent, type AutotuneJob, type CellSummary } from './autotune-job.ts'
export { runJob, type AutotuneJobResult, type JobProgress, type SkippedConfig } from './deno-autotune.ts'
