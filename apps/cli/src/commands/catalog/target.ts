/**
 * What the catalog subcommands share: resolving --hardware through @kerneltune/features presets,
 * building the catalog from the engines' registry (so engine catalog extensions join it; no
 * measurement backend is built), and
 * turning an engine's translate refusals into the catalog's refuse hook.
 */
import { kerneltuneError, type Combo, type EnginePlugin, type HardwareSpec, type Registry } from '@kerneltune/core'
import { buildCatalog, type AsyncRefuseHook, type Catalog } from '@kerneltune/catalog'
import { requireHardwarePreset } from '@kerneltune/features'
import type { FlagSpec } from '../../cli/args.ts'
import { ENGINE_NAMES, engineRegistry } from '@kerneltune/compose'

export const TARGET_FLAGS = [
  { name: 'hardware', type: 'string', valueName: 'NAME', description: 'Hardware preset id or name (e.g. h100-sxm, a100-sxm-80gb, l4, mi300x); see @kerneltune/features presets.' },
  { name: 'engine', type: 'string', default: 'vllm', choices: ENGINE_NAMES, description: 'Engine plugin name (the built-in engines, as compose registers them).' },
  { name: 'version', type: 'string', valueName: 'V', description: "Engine release the refusals and version-ranged rules are checked for (default: the engine's default, its newest)." },
] as const satisfies readonly FlagSpec[]

export function resolveHardware(name: string | undefined): HardwareSpec {
  if (!name) throw kerneltuneError('INVALID_INPUT', '--hardware is required (a preset id such as h100-sxm)')
  return requireHardwarePreset(name)
}

export function findEngine(registry: Registry, name: string): EnginePlugin | undefined {
  return registry.find('engine', name) ?? registry.find('engine', `engine:${name}`)
}

export interface CatalogSession {
  readonly catalog: Catalog
  readonly registry?: Registry
  readonly engine?: EnginePlugin
  readonly refuse?: AsyncRefuseHook
}

/**
 * The catalog (with every registered engine's extension) and, when an engine is named, its
 * plugin and refusal hook.
 */
export async function openCatalog(engineName: string | undefined, hardware?: HardwareSpec, version?: string): Promise<CatalogSession> {
  const registry = await engineRegistry()
  const catalog = buildCatalog(registry)
  if (engineName === undefined) return { catalog, registry }
  const engine = findEngine(registry, engineName)
  if (!engine) {
    const names = registry.list('engine').map((e) => e.name).join(', ')
    throw kerneltuneError('PLUGIN_NOT_FOUND', `no engine plugin named "${engineName}"; registered: ${names || 'none'}`)
  }
  // An unknown release is a usage error once, not a refusal of every combination.
  if (version !== undefined) await engine.translate({}, { version })
  const refuse: AsyncRefuseHook = async (combo: Combo) => {
    const r = await engine.translate(combo, { ...(hardware ? { hardware } : {}), ...(version ? { version } : {}) })
    return r.ok ? undefined : { dimension: r.dimension, value: r.value, reason: r.reason }
  }
  return { catalog, registry, engine, refuse }
}

/** "attention_backend=flash_attn_v3,kv_layout=paged" → a combo; INVALID_INPUT on bad syntax. */
export function parseComboText(text: string): Combo {
  const combo: Record<string, string> = {}
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z][a-z0-9_]*)=([^=\s]+)$/.exec(part)
    if (!m) throw kerneltuneError('INVALID_INPUT', `"${part}" is not dimension=value (e.g. attention_backend=flash_attn_v3,kv_layout=paged)`)
    if (combo[m[1]!] !== undefined) throw kerneltuneError('INVALID_INPUT', `dimension ${m[1]} is given twice`)
    combo[m[1]!] = m[2]!
  }
  if (Object.keys(combo).length === 0) throw kerneltuneError('INVALID_INPUT', 'empty combination; write dimension=value pairs separated by commas')
  return combo
}

export const comboText = (combo: Combo): string => Object.entries(combo).map(([k, v]) => `${k}=${v}`).join(',')
