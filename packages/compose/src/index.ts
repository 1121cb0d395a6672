/**
 * @module @kerneltune/compose
 * The composition root of the kerneltune apps. This entry is runtime-neutral and light: the
 * engine names, and registries of engines that load their packages on demand. The Node entry
 * (`@kerneltune/compose/node`) adds the measurement backends, the search strategies and the store.
 *
 * @example
 * ```ts
 * import { engineRegistry } from '@kerneltune/compose'
 * const vllm = (await engineRegistry()).get('engine', 'vllm')
 * console.log(await vllm.translate({ attention_backend: 'flashinfer' }))
 * ```
 */
export { openCatalog, type CatalogSession } from './catalog-session.ts'
export { DEFAULT_SERVING_ENGINE, ENGINE_NAMES, engineRegistry, isEngineName, loadEngine, SERVING_ENGINE_NAMES, servingModelFile, type EngineName } from './engines.ts'
export { parseSpace, SWEEP_BACKENDS, SWEEP_GGUF_ENGINE, type SpaceOverride } from './sweep/space.ts'
