/**
 * The combinations the suite walks: by default the full product of the six core dimensions
 * (6 × 3 × 4 × 4 × 3 × 3 = 2,592), so that no corner of the catalog goes untested.
 */
import { CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES, type Combo } from '@kerneltune/core'

/** Every combination of the given dimensions' values, in a stable order (last key varies fastest). */
export function productOf(dimensions: Readonly<Record<string, readonly string[]>>): Combo[] {
  let out: Record<string, string>[] = [{}]
  for (const [id, values] of Object.entries(dimensions)) {
    const next: Record<string, string>[] = []
    for (const partial of out) for (const value of values) next.push({ ...partial, [id]: value })
    out = next
  }
  return out
}

/** The full product of the core dimensions' values. */
export function coreCombos(): Combo[] {
  const dims: Record<string, readonly string[]> = {}
  for (const id of CORE_DIMENSION_IDS) dims[id] = CORE_DIMENSION_VALUES[id]
  return productOf(dims)
}
