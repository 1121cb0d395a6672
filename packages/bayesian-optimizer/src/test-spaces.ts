/** Small in-memory spaces and objectives shared by the tests (no data files needed). */
import type { SearchConfig, SearchSpaceDefinition } from '@kerneltune/core'

/** 6 × 5 × 4 × 3 = 360 combinations, about half valid under the predicate. */
export const CONSTRAINED: SearchSpaceDefinition = {
  params: [
    { name: 'tile', type: 'ordinal', values: [8, 16, 32, 64, 128, 256] },
    { name: 'warps', type: 'integer', values: [1, 2, 3, 4, 5] },
    { name: 'layout', type: 'categorical', values: ['row', 'col', 'tiled', 'swizzle'] },
    { name: 'stages', type: 'ordinal', values: [1, 2, 3] },
  ],
  isValid: (c) => Number(c.tile) / Number(c.warps) >= 16 && !(c.layout === 'swizzle' && c.stages === 1),
}

export function constrainedOk(c: SearchConfig): boolean {
  return Number(c.tile) / Number(c.warps) >= 16 && !(c.layout === 'swizzle' && c.stages === 1)
}

/** A smooth bowl with a categorical offset; minimum at tile 64, warps 2, layout tiled, stages 2. */
export function bowl(c: SearchConfig): number {
  const t = Math.log2(Number(c.tile)) - 6
  const w = Number(c.warps) - 2
  const s = Number(c.stages) - 2
  const layout = { row: 0.6, col: 0.9, tiled: 0, swizzle: 0.3 }[c.layout as 'row']
  return 1 + t * t + 0.5 * w * w + 0.3 * s * s + layout
}
