/**
 * @module @kerneltune/backends/node
 * The measurement backends that run something real: gpu-kernels (WGSL kernels through WebGPU,
 * in a Deno worker process) and node-llama-cpp (llama.cpp through node-llama-cpp, a native
 * addon). They spawn processes or load native code, so they are server-side only.
 *
 * @example
 * ```ts
 * import { gpuKernelsBackend } from '@kerneltune/backends/node'
 * const backend = gpuKernelsBackend()
 * console.log(await backend.available())
 * backend.close()
 * ```
 */
export { gpuKernelsBackend, findDeno, type GpuKernelsBackend, type GpuKernelsBackendOptions } from './adapters/gpu-kernels-backend.node.ts'
export { llamacppRunBackend, llamacppRunEngine, LLAMACPP_BACKEND, type LlamacppRunBackendOptions } from './adapters/llamacpp-backend.node.ts'
export { repetitionOf, SERVER_BACKEND, serverBackend, type ServerBackend, type ServerBackendOptions } from './adapters/server-backend.node.ts'
export { LLAMA_SERVER_BACKEND, llamaServerRunBackend, type LlamaServerRunBackendOptions } from './adapters/llama-server-backend.node.ts'
