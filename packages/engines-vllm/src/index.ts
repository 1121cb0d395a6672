/**
 * @module @kerneltune/engines-vllm
 * Translates a kerneltune catalog combination into a `vllm serve` command line, its
 * `--compilation-config` and environment, or refuses with the dimension, the value and why.
 * Per release: v0.11.2, v0.12.0, v0.13.0 and v0.32.0 (the default), each with its inventory.
 *
 * @example
 * ```ts
 * import { formatCommandLine } from '@kerneltune/core'
 * import { vllmEngine } from '@kerneltune/engines-vllm'
 * const r = vllmEngine().translate({ attention_backend: 'flash_attn_v3', cuda_graph: 'dynamic' }, { version: '0.32.0' })
 * if (r.ok) console.log(formatCommandLine(r)) // quoted for sh: the JSON values survive a paste
 * else console.log(`${r.dimension}=${r.value}: ${r.reason}`)
 * ```
 */
export { vllmEngine, type VllmEnginePlugin, MODEL_PLACEHOLDER, type VllmEngineOptions } from './engine.ts'
export { planVllm, argsToFlags, type VllmEngineArgs, type VllmPlan } from './plan.ts'
export { COMPILATION_MODE, DTYPES, releaseWithBackend, VLLM_DEFAULT_VERSION, VLLM_RELEASES, VLLM_VERSIONS, vllmInventory, vllmRelease, type VllmRelease, type VllmVersion } from './releases.ts'
export { VLLM_METRICS, vllmServing } from './serving.ts'
export { vllmServingSweepSpace, type VllmServingSweepSpace } from './sweep-space.ts'
