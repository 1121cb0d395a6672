/**
 * @module @kerneltune/tuner/node
 * The real measurement backends: gpu-kernels (spawns Deno for WebGPU) and llamacpp (llama.cpp
 * through node-llama-cpp, a native addon). Server-side only.
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
export { llamacppRunBackend, llamacppRunEngine, LLAMACPP_BACKEND, type LlamacppRunBackendOptions } from './adapters/llamacpp-backend.node.ts'
