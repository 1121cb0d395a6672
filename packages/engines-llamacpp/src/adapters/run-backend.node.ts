/**
 * The llama.cpp measurement backend for runs: `llamacppBackend` (node-llama-cpp.node.ts: real
 * llama.cpp through node-llama-cpp) behind a model-file
 * backend, so one registered `llamacpp` plugin measures whichever GGUF a run names (modelPath).
 * The prompt and generated token counts come from the run's workload.
 */
import { modelFileBackend, type EnginePlugin, type ModelFileBackend } from '@kerneltune/core'
import { llamacppEngine, type LlamacppEngineOptions } from '../engine.ts'
import { LLAMACPP_SERVER_DIMENSIONS } from '../server-settings.ts'
import { llamacppBackend, type LlamacppBackendOptions } from './node-llama-cpp.node.ts'

/** Not 'llamacpp': plugin names are unique across kinds and the engine has that one. Requests may say 'llamacpp'. */
export const LLAMACPP_BACKEND = 'node-llama-cpp'

export type LlamacppRunBackendOptions = Omit<LlamacppBackendOptions, 'modelPath'>

export function llamacppRunBackend(options: LlamacppRunBackendOptions = {}): ModelFileBackend {
  return modelFileBackend({
    name: LLAMACPP_BACKEND,
    description: 'llama.cpp (node-llama-cpp, prebuilt binaries) measuring prefill, decode, TTFT and memory of the run\'s GGUF (modelPath)',
    simulated: false,
    fileKind: 'a GGUF file',
    engine: 'llamacpp',
    // In process there are no server slots and no batching policy: runs hold them at their defaults.
    ignores: LLAMACPP_SERVER_DIMENSIONS.map((d) => d.id),
    create: (modelPath) => llamacppBackend({ ...options, modelPath }),
  })
}

/** The llama.cpp engine plugin, as runs use it (its catalog extension has no core dimensions). */
export const llamacppRunEngine = (options?: LlamacppEngineOptions): EnginePlugin => llamacppEngine(options)
