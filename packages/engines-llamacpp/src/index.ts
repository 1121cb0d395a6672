/**
 * @module @kerneltune/engines-llamacpp
 * A llama.cpp engine plugin, written only against the public @kerneltune/core plugin API: it
 * translates combinations into `llama-server` flags and contributes its own catalog dimensions
 * (threads, batch sizes, flash attention, K/V cache types, GPU layers, context, mmap/mlock)
 * with legality rules. The node-llama-cpp measurement backend lives in
 * `@kerneltune/engines-llamacpp/node`. The experiment designs that measure these settings (sequential,
 * interleaved with an A/A arm) live in @kerneltune/experiment.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * import { llamacppEngine } from '@kerneltune/engines-llamacpp'
 * const engine = createRegistry().register(llamacppEngine())
 * const t = await engine.translate({ threads: '8', flash_attn: 'on', cache_type_v: 'q8_0' }, { model: 'model.gguf' })
 * // t.argv: ['llama-server', '-m', 'model.gguf', '--threads', '8', '--flash-attn', 'on', '--cache-type-v', 'q8_0']
 * ```
 */
export { ENGINE_NAME, MODEL_PLACEHOLDER, llamacppEngine, loadMode, type LlamacppEngineOptions } from './engine.ts'
export { LLAMACPP_CATALOG_EXTENSION, LLAMACPP_DIMENSIONS, LLAMACPP_RULES } from './catalog-extension.ts'
export { CORE_MAPPING, type CoreMapping } from './core-mapping.ts'
export { DEFAULTS, ENV, FLAGS, KV_CACHE_TYPES, LLAMACPP_VERSION, QUANTIZED_KV_TYPES } from './facts.ts'
export { buildFacts, LLAMACPP_BUILD_FACTS, LLAMACPP_BUILDS, llamacppInventory, type LlamacppBuild, type LlamacppBuildFacts } from './builds.ts'
export { runtimeOptions, type RuntimeOptions } from './runtime-options.ts'
export { SWEEP_MODES, sweepExtension, sweepSpace, threadValues, withoutDefaults, type SweepMode, type SweepSpace } from './sweep-space.ts'
export {
  LLAMACPP_SERVER_DIMENSIONS,
  LLAMACPP_SERVING_EXTENSION,
  SERVER_DEFAULTS,
  SERVER_FLAGS,
  SERVING_SWEEP_MODES,
  llamacppServerEngine,
  servingSweepExtension,
  servingSweepSpace,
  withoutServingDefaults,
  type ServingSweepMode,
} from './server-settings.ts'
export { BUILD_HINT, LLAMA_SERVER_ENV, LLAMA_SERVER_METRICS, llamacppServing, MODEL_LOADED_LINE, type LlamacppServingOptions } from './serving.ts'
