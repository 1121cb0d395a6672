/**
 * @module @kerneltune/tuner/node
 * The real gpu-kernels measurement backend (spawns Deno for WebGPU, so Node-side only).
 *
 * @example
 * ```ts
 * import { gpuKernelsBackend } from '@kerneltune/tuner/node'
 * const backend = gpuKernelsBackend()
 * console.log(await backend.available())
 * backend.close()
 * ```
 */
export { gpuKernelsBackend, findDeno, type GpuKernelsBackend, type GpuKernelsBackendOptions } from './adapters/gpu-kernels-backend.node.ts'
