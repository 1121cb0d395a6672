/**
 * The lookup table (batch → hidden → sorted bit-width tuple → config) and selection in upstream
 * order (§B.6): exact, nearest batch then nearest hidden (one candidate only, as upstream), then
 * the default for the narrowest bit width. Unlike upstream, every answer says how it was found.
 */
import { kerneltuneError } from '@kerneltune/core'
import { BIT_WIDTHS } from './constants.ts'
import { createKernelConfig, type KernelConfig } from './kernel-config.ts'

/** batch → hidden → bit key ("2,4") → config. */
export type LookupTable = Map<number, Map<number, Map<string, KernelConfig>>>

/** Sorted bit widths; rejects widths outside {2, 3, 4, 8}. */
export function sortedBits(bits: readonly number[]): number[] {
  for (const b of bits) {
    if (!(BIT_WIDTHS as readonly number[]).includes(b)) {
      throw kerneltuneError('INVALID_INPUT', `Invalid bit width ${b}: must be one of ${BIT_WIDTHS.join(', ')}`)
    }
  }
  return [...bits].sort((a, b) => a - b)
}

/** The export's bit key: `"2,4"`. Duplicates are kept, as Python's `tuple(sorted(bits))` does. */
export function bitKey(bits: readonly number[]): string {
  return sortedBits(bits).join(',')
}

/** Python's tuple repr of the sorted bits: `(2, 4)` or `(4,)`; used in latency keys. */
export function bitTuple(bits: readonly number[]): string {
  const s = sortedBits(bits)
  return s.length === 1 ? `(${s[0]},)` : `(${s.join(', ')})`
}

/**
 * Parses either key style, `"2,4"` (the code) or `"(2, 4)"` / `"(4,)"` (the guide). Returns null on
 * anything else so that the loader can report it with its path.
 */
export function parseBitKey(key: string): number[] | null {
  let body = key.trim()
  if (body.startsWith('(') && body.endsWith(')')) body = body.slice(1, -1)
  const parts = body.split(',').map((p) => p.trim())
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop()
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) return null
  const bits = parts.map(Number)
  if (bits.some((b) => !(BIT_WIDTHS as readonly number[]).includes(b))) return null
  return bits.sort((a, b) => a - b)
}

/** `_find_nearest_key`: the key closest to `target`, ties to the smaller key; null when empty. */
export function findNearestKey(target: number, keys: Iterable<number>): number | null {
  let best: number | null = null
  for (const k of keys) {
    if (best === null) best = k
    else {
      const d = Math.abs(k - target)
      const bd = Math.abs(best - target)
      if (d < bd || (d === bd && k < best)) best = k
    }
  }
  return best
}

export function setEntry(table: LookupTable, batch: number, hidden: number, bits: readonly number[], config: KernelConfig): void {
  let byHidden = table.get(batch)
  if (!byHidden) table.set(batch, (byHidden = new Map()))
  let byBits = byHidden.get(hidden)
  if (!byBits) byHidden.set(hidden, (byBits = new Map()))
  byBits.set(bitKey(bits), config)
}

export function getEntry(table: LookupTable, batch: number, hidden: number, bits: readonly number[]): KernelConfig | undefined {
  return table.get(batch)?.get(hidden)?.get(bitKey(bits))
}

/** Number of leaves (configs) in the table. */
export function countEntries(table: LookupTable): number {
  let n = 0
  for (const byHidden of table.values()) for (const byBits of byHidden.values()) n += byBits.size
  return n
}

export type SelectionMethod = 'exact' | 'nearest_batch' | 'nearest_hidden' | 'default'

export interface Selection {
  readonly config: KernelConfig
  /** exact; nearest_batch (the batch differed, the hidden may too); nearest_hidden (only the hidden differed); default. */
  readonly method: SelectionMethod
  /** The table key the config came from; null for a default config. */
  readonly key: { readonly batch: number; readonly hidden: number; readonly bits: string } | null
  /** |requested − found| per dimension; null for a default config. */
  readonly distance: { readonly batch: number; readonly hidden: number } | null
}

export interface DefaultMappings {
  readonly tileSizeMapping: Readonly<Record<number, number>>
  readonly simdgroupMapping: Readonly<Record<number, number>>
}

/** The default config: narrowest bit width, its square tile and simdgroups, decode for batch 1. */
export function defaultConfig(batch: number, bits: readonly number[], mappings: DefaultMappings): KernelConfig {
  const s = sortedBits(bits)
  const bw = s.length ? s[0]! : 4
  const tile = mappings.tileSizeMapping[bw] ?? 64
  return createKernelConfig({
    bit_width: bw,
    tile_size_m: tile,
    tile_size_n: tile,
    num_simdgroups: mappings.simdgroupMapping[bw] ?? 8,
    kernel_variant: batch === 1 ? 'decode' : 'base',
    batch_strategy: 'hybrid',
  })
}

/** `select_kernel` with provenance; null only when nothing matches and the fallback is off. */
export function selectFromTable(
  table: LookupTable,
  batch: number,
  hidden: number,
  bits: readonly number[],
  mappings: DefaultMappings,
  fallbackToDefault = true,
): Selection | null {
  const key = bitKey(bits)
  const exact = table.get(batch)?.get(hidden)?.get(key)
  if (exact) return { config: exact, method: 'exact', key: { batch, hidden, bits: key }, distance: { batch: 0, hidden: 0 } }
  const nb = findNearestKey(batch, table.keys())
  if (nb !== null) {
    const byHidden = table.get(nb)!
    const nh = findNearestKey(hidden, byHidden.keys())
    const found = nh === null ? undefined : byHidden.get(nh)?.get(key)
    if (found && nh !== null) {
      return {
        config: found,
        method: nb !== batch ? 'nearest_batch' : 'nearest_hidden',
        key: { batch: nb, hidden: nh, bits: key },
        distance: { batch: Math.abs(nb - batch), hidden: Math.abs(nh - hidden) },
      }
    }
  }
  if (!fallbackToDefault) return null
  return { config: defaultConfig(batch, bits, mappings), method: 'default', key: null, distance: null }
}
