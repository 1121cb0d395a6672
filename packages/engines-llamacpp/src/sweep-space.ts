/**
 * What a llama.cpp sweep covers: a subset of the catalog extension's dimensions with the values
 * to try, per mode, turned into a CatalogExtension so the kerneltune catalog enumerates it and
 * applies the engine's legality rules. Dimensions left out stay at llama-server's defaults.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { CatalogExtension, Combo } from '@kerneltune/core'
import { LLAMACPP_DIMENSIONS, LLAMACPP_RULES } from './catalog-extension.ts'
import { DEFAULTS } from './facts.ts'

export const SWEEP_MODES = ['quick', 'standard'] as const
export type SweepMode = (typeof SWEEP_MODES)[number]

/** Dimension id → the values a sweep tries. */
export type SweepSpace = Readonly<Record<string, readonly string[]>>

/**
 * Quick: thread counts (auto and each quick value up to the logical core count), flash attention
 * auto/off, and the V cache f16/q8_0, which pairs with the flash-attention rule. That is 12
 * combinations before the rules, 9 after; small enough for a 1–2 minute sweep of a tiny model on
 * 2 cores. Decode on CPU is sensitive to threads first, so they come first.
 * Standard adds the micro-batch (prompt processing) and the K cache type: 48 before the rules.
 */
const SPACES: Record<SweepMode, SweepSpace> = {
  quick: { threads: [], flash_attn: ['auto', 'off'], cache_type_v: ['f16', 'q8_0'] },
  standard: { threads: [], ubatch_size: ['128', '512'], flash_attn: ['auto', 'off'], cache_type_k: ['f16', 'q8_0'], cache_type_v: ['f16', 'q8_0'] },
}

/**
 * Thread counts worth trying on a machine with `logicalCores`: auto (llama.cpp's default), then
 * the catalog's quick thread values, half the core count and the core count itself (where the
 * catalog lists them), never above the core count
 * (oversubscribing a CPU only adds contention). Whether `cores` itself is good is left to the data.
 */
export function threadValues(logicalCores: number): string[] {
  const cores = Math.max(1, Math.floor(logicalCores))
  const dim = LLAMACPP_DIMENSIONS.find((d) => d.id === 'threads')!
  const known = dim.values.map((v) => v.id)
  const picks = new Set<string>(['auto'])
  for (const v of [...(dim.quickValues ?? []), String(Math.floor(cores / 2)), String(cores)]) {
    if (v !== 'auto' && Number(v) <= cores && known.includes(v)) picks.add(v)
  }
  return [...picks].sort((a, b) => (a === 'auto' ? -1 : b === 'auto' ? 1 : Number(a) - Number(b)))
}

/** The space of a mode for a machine with `logicalCores`; `override` replaces whole dimensions. */
export function sweepSpace(mode: SweepMode, logicalCores: number, override: SweepSpace = {}): SweepSpace {
  const base = SPACES[mode]
  if (!base) throw new KerneltuneError('INVALID_INPUT', `unknown sweep mode "${mode}"; accepted: ${SWEEP_MODES.join(', ')}`)
  const space: Record<string, readonly string[]> = { ...base, threads: threadValues(logicalCores), ...override }
  for (const [id, values] of Object.entries(space)) {
    const dim = LLAMACPP_DIMENSIONS.find((d) => d.id === id)
    if (!dim) throw new KerneltuneError('INVALID_INPUT', `llama.cpp has no dimension ${id}; known: ${LLAMACPP_DIMENSIONS.map((d) => d.id).join(', ')}`)
    const bad = values.filter((v) => !dim.values.some((x) => x.id === v))
    if (values.length === 0 || bad.length) {
      throw new KerneltuneError('INVALID_INPUT', `${id}: ${values.length === 0 ? 'needs at least one value' : `unknown values ${bad.join(', ')}`}; known: ${dim.values.map((v) => v.id).join(', ')}`)
    }
  }
  return space
}

/**
 * The space as a catalog extension: only the swept dimensions, each with the sweep's values as
 * its quick values, no core dimensions (llama.cpp runs its own kernels), and all the engine's
 * rules. Enumerate it with `createCatalog({ extensions: [{ engine: 'llamacpp', extension }] })`
 * in quick mode.
 */
export function sweepExtension(space: SweepSpace): CatalogExtension {
  const dimensions = LLAMACPP_DIMENSIONS.filter((d) => space[d.id]).map((d) => ({ ...d, quickValues: [...space[d.id]!] }))
  return { dimensions, rules: LLAMACPP_RULES, coreDimensions: [] }
}

/** A combo with every default value removed: two combos that run the same are then equal. */
export function withoutDefaults(combo: Combo): Combo {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(combo)) if (DEFAULTS[k as keyof typeof DEFAULTS] !== v) out[k] = v
  return out
}
