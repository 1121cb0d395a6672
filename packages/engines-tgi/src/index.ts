/**
 * @module @kerneltune/engines-tgi
 * Translates a kerneltune catalog combination into a `text-generation-launcher` command line and
 * its environment (ATTENTION, PREFILL_CHUNKING, USE_CUTLASS_W8A8), or refuses with the dimension,
 * the value and why. Release 3.3.7, checked against source at its tag.
 *
 * @example
 * ```ts
 * import { tgiEngine } from '@kerneltune/engines-tgi'
 * const r = tgiEngine().translate({ attention_backend: 'flash_attn_v2', kv_layout: 'chunked' })
 * if (r.ok) console.log(r.env, r.argv.join(' '))
 * ```
 */
export { tgiEngine, type TgiEnginePlugin, MODEL_PLACEHOLDER, type TgiEngineOptions } from './engine.ts'
export { TGI_INVENTORIES, TGI_VERSIONS, type TgiVersion } from './releases.ts'
export { TGI_METRICS, tgiServing } from './serving.ts'
