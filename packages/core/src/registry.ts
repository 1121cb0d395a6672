/**
 * The plugin registry. Plugins join it with `register`; it checks their shape and contract
 * version, rejects duplicate names, and hands back a wrapped copy whose hooks stamp any error
 * with the plugin's name, the hook and the cause.
 */
import { CONTRACT_VERSIONS, type PluginBase, type PluginKind } from './contracts/plugin.ts'
import type { EnginePlugin } from './contracts/engine.ts'
import type { MeasurementBackend } from './contracts/measurement.ts'
import type { SearchStrategyPlugin } from './contracts/search.ts'
import type { PredictorPlugin } from './contracts/predictor.ts'
import type { KernelProviderPlugin } from './contracts/kernel-provider.ts'
import type { KernelGeneratorPlugin } from './contracts/kernel-generator.ts'
import type { CatalogExtension } from './contracts/catalog-extension.ts'
import { KerneltuneError, pluginError } from './errors.ts'
import { CORE_DIMENSION_IDS, type CoreDimensionId } from './dimensions.ts'
import { pluginHead, pluginHooks } from './checks/plugin.ts'
import type { AnyPlugin, PluginByKind } from './contracts/plugin-by-kind.ts'

export type { AnyPlugin, PluginByKind }

/** The core dimensions an engine controls; all six for a plugin that does not say. */
export function engineControls(engine: Pick<EnginePlugin, 'controls'>): readonly CoreDimensionId[] {
  return engine.controls ?? CORE_DIMENSION_IDS
}

/** Checks a plugin's shape and contract version; throws INVALID_PLUGIN or INCOMPATIBLE_PLUGIN. */
export function assertPlugin(plugin: unknown): asserts plugin is AnyPlugin {
  // Checked by hand, not with zod: registering runs at every start-up (checks/plugin.ts).
  const head = pluginHead(plugin, [])
  if (head.length > 0) {
    const name = typeof (plugin as { name?: unknown })?.name === 'string' ? (plugin as { name: string }).name : '(unnamed)'
    throw new KerneltuneError('INVALID_PLUGIN', `plugin ${name} is not a valid plugin: ${head.join('; ')}`, {
      plugin: name,
    })
  }
  const { name, kind, apiVersion } = plugin as PluginBase
  const expected = CONTRACT_VERSIONS[kind]
  if (apiVersion !== expected) {
    throw new KerneltuneError(
      'INCOMPATIBLE_PLUGIN',
      `plugin ${name} implements the ${kind} contract version ${apiVersion}, but this kerneltune supports version ${expected}; upgrade the plugin or kerneltune so that they match`,
      { plugin: name, details: { kind, apiVersion, supported: expected } },
    )
  }
  const hooks = pluginHooks[kind](plugin, [])
  if (hooks.length > 0) {
    throw new KerneltuneError('INVALID_PLUGIN', `plugin ${name} (${kind}) is missing required members: ${hooks.join('; ')}`, {
      plugin: name,
    })
  }
}

/**
 * Returns a copy of the plugin whose function members rethrow errors (sync or async) as
 * PLUGIN_ERROR naming the plugin and the hook. Non-function members are copied as they are.
 */
export function wrapPlugin<P extends PluginBase>(plugin: P): P {
  const wrapped: Record<string, unknown> = {}
  for (const key of Object.keys(plugin)) {
    const value = (plugin as Record<string, unknown>)[key]
    if (typeof value !== 'function') {
      wrapped[key] = value
      continue
    }
    wrapped[key] = function hook(this: unknown, ...args: unknown[]) {
      let result: unknown
      try {
        result = (value as (...a: unknown[]) => unknown).apply(plugin, args)
      } catch (cause) {
        throw pluginError(plugin.name, key, cause)
      }
      if (result instanceof Promise) {
        return result.catch((cause: unknown) => {
          throw pluginError(plugin.name, key, cause)
        })
      }
      return result
    }
  }
  return Object.freeze(wrapped) as P
}

export interface Registry {
  /** Adds a plugin and returns its wrapped form. Throws on a duplicate name or a bad plugin. */
  register<P extends AnyPlugin>(plugin: P): P
  /** The plugin of this kind and name; throws PLUGIN_NOT_FOUND naming the ones that exist. */
  get<K extends PluginKind>(kind: K, name: string): PluginByKind[K]
  find<K extends PluginKind>(kind: K, name: string): PluginByKind[K] | undefined
  list<K extends PluginKind>(kind: K): PluginByKind[K][]
  list(): AnyPlugin[]
  has(name: string): boolean
  /** Catalog extensions contributed by engine plugins, with the engine that contributed each. */
  catalogExtensions(): { engine: string; extension: CatalogExtension }[]
}

/** Creates an empty registry. */
export function createRegistry(plugins: readonly AnyPlugin[] = []): Registry {
  const byName = new Map<string, AnyPlugin>()

  function list<K extends PluginKind>(kind: K): PluginByKind[K][]
  function list(): AnyPlugin[]
  function list(kind?: PluginKind): AnyPlugin[] {
    const all = [...byName.values()]
    return kind ? all.filter((p) => p.kind === kind) : all
  }

  const registry: Registry = {
    register<P extends AnyPlugin>(plugin: P): P {
      assertPlugin(plugin)
      if (byName.has(plugin.name)) {
        throw new KerneltuneError('DUPLICATE_PLUGIN', `a plugin named ${plugin.name} is already registered; plugin names must be unique`, {
          plugin: plugin.name,
        })
      }
      const wrapped = wrapPlugin(plugin)
      byName.set(plugin.name, wrapped)
      return wrapped
    },
    get<K extends PluginKind>(kind: K, name: string): PluginByKind[K] {
      const found = registry.find(kind, name)
      if (found) return found
      const names = registry.list(kind).map((p) => p.name)
      throw new KerneltuneError(
        'PLUGIN_NOT_FOUND',
        `no ${kind} plugin named ${name}; registered: ${names.length ? names.join(', ') : '(none)'}`,
        { details: { kind, name, available: names } },
      )
    },
    find<K extends PluginKind>(kind: K, name: string): PluginByKind[K] | undefined {
      const p = byName.get(name)
      return p && p.kind === kind ? (p as PluginByKind[K]) : undefined
    },
    list,
    has: (name) => byName.has(name),
    catalogExtensions() {
      return registry
        .list('engine')
        .filter((e) => e.catalogExtension !== undefined)
        .map((e) => ({ engine: e.name, extension: e.catalogExtension! }))
    },
  }
  for (const p of plugins) registry.register(p)
  return registry
}
