/**
 * @module @kerneltune/engines-llamacpp/node
 * The node-llama-cpp measurement backend (Node only: it loads llama.cpp as a native addon), its
 * model-file wrapper for runs, and where the llama-server binary is (the serving capability's
 * lookup: `llamacppServerEngine({ locate: locateLlamaServer })`).
 *
 * @example
 * ```ts
 * import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
 * const backend = llamacppBackend({ modelPath: 'tiny.gguf', promptTokens: 64, genTokens: 16 })
 * const result = await backend.measure({ combo: { threads: '2' }, warmups: 1, repetitions: 3 })
 * console.log(result.device, result.repetitions.map((r) => r.decodeTps))
 * ```
 */
export { BACKEND_NAME, llamacppBackend, type LlamacppBackendOptions } from './adapters/node-llama-cpp.node.ts'
export { measureOnce, type MeasureOnceOptions } from './adapters/measure-once.node.ts'
export { llamacppRunBackend, llamacppRunEngine, LLAMACPP_BACKEND, type LlamacppRunBackendOptions } from './adapters/run-backend.node.ts'
export { cpuSignature, findLlamaServer, llamaServerCacheRoot, locateLlamaServer, requireLlamaServer, type FoundBinary } from './adapters/llama-server-binary.node.ts'
export { BUILD_HINT, LLAMA_SERVER_ENV } from './serving.ts'
