/**
 * The llama.cpp measurement backend for runs: `llamacppBackend` from
 * @kerneltune/engines-llamacpp/node (real llama.cpp through node-llama-cpp) behind a model-file
 * backend, so one registered `llamacpp` plugin measures whichever GGUF a run names (modelPath).
 * The prompt and generated token counts come from the run's workload.
 */
import { modelFileBackend, type EnginePlugin, type ModelFileBackend } from '@kerneltune/core'
import { LLAMACPP_SERVER_DIMENSIONS, llamacppEngine, type LlamacppEngineOptions } from '@kerneltune/engines-llamacpp'
import { llamacppBackend, type LlamacppBackendOptions } from '@kerneltune/engines-llamacpp/node'

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
