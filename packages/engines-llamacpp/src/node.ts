/**
 * @module @kerneltune/engines-llamacpp/node
 * The node-llama-cpp measurement backend (Node only: it loads llama.cpp as a native addon).
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
