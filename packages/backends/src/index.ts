/**
 * @module @kerneltune/backends
 * Measurement backends: plugins of kind `measurement-backend` (the `MeasurementBackend` contract
 * of @kerneltune/core) that measure one catalog combination and return every repetition. This
 * entry point is runtime-neutral: the analytical backend (a roofline prediction, every result
 * labelled `simulated: true`) and the mapping of a combination onto the gpu-kernels WGSL kernels.
 * The backends that touch a device or a process are in `@kerneltune/backends/node`.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * import { analyticalBackend } from '@kerneltune/backends'
 * const registry = createRegistry([analyticalBackend()])
 * const r = await registry.get('measurement-backend', 'analytical').measure({ combo: {}, model, hardware, workload, repetitions: 3, warmups: 0 })
 * console.log(r.simulated, r.device, r.repetitions.length) // true, 'roofline of …', 3
 * ```
 */
export { analyticalBackend, ANALYTICAL_BACKEND, kvBytesFor, type AnalyticalBackendOptions } from './analytical.ts'
export { gpuKernelsProblem, GPU_KERNELS_BACKEND, MATMUL_PATH_CONFIGS, UNEXERCISED_DIMENSIONS, type GpuKernelsPlan, type ScaleLimits } from './gpu-kernels-mapping.ts'
export { checkMeasurementBackend, resultProblems, type ConformanceOptions, type ConformanceReport, type ConformanceRequest } from './conformance.ts'
