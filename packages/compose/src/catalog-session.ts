/**
 * The catalog as the apps see it: built from every registered engine (so engine catalog
 * extensions join it; no measurement backend is built) and, when an engine is named, that
 * engine's plugin and its translate refusals as the catalog's refuse hook.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { EnginePlugin, HardwareSpec, Registry } from '@kerneltune/core'
import type { AsyncRefuseHook, Catalog } from '@kerneltune/catalog'
import { engineRegistry } from './engines.ts'

export interface CatalogSession {
  readonly catalog: Catalog
  readonly registry: Registry
  readonly engine?: EnginePlugin
  readonly refuse?: AsyncRefuseHook
}

/** The catalog and, for `engineName`, its plugin and refusals on `hardware` at release `version`. */
export async function openCatalog(engineName: string | undefined, hardware?: HardwareSpec, version?: string): Promise<CatalogSession> {
  // Loaded here, not at the top: this entry stays light for commands that only translate.
  const { buildCatalog, engineRefuseHook } = await import('@kerneltune/catalog')
  const registry = await engineRegistry()
  const catalog = buildCatalog(registry)
  if (engineName === undefined) return { catalog, registry }
  const engine = registry.find('engine', engineName) ?? registry.find('engine', `engine:${engineName}`)
  if (!engine) {
    const names = registry.list('engine').map((e) => e.name).join(', ')
    throw new KerneltuneError('PLUGIN_NOT_FOUND', `no engine plugin named "${engineName}"; registered: ${names || 'none'}`)
  }
  // An unknown release is a usage error once, not a refusal of every combination.
  if (version !== undefined) await engine.translate({}, { version })
  return { catalog, registry, engine, refuse: engineRefuseHook(engine, { ...(hardware ? { hardware } : {}), ...(version ? { version } : {}) }) }
}
