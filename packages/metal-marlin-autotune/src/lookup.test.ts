import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DEFAULT_SIMDGROUP_MAPPING, DEFAULT_TILE_SIZE_MAPPING } from './constants.ts'
import { createKernelConfig } from './kernel-config.ts'
import { bitKey, bitTuple, countEntries, findNearestKey, parseBitKey, selectFromTable, setEntry, type LookupTable } from './lookup.ts'

const mappings = { tileSizeMapping: DEFAULT_TILE_SIZE_MAPPING, simdgroupMapping: DEFAULT_SIMDGROUP_MAPPING }

describe('findNearestKey', () => {
  it('should match upstream on {1,4,8,16,32}: 6→4, 10→8, 0→1, 100→32, and null when empty', () => {
    const keys = [1, 4, 8, 16, 32]
    expect([6, 10, 0, 100].map((t) => findNearestKey(t, keys))).toEqual([4, 8, 1, 32])
    expect(findNearestKey(5, [])).toBeNull()
  })

  it('should return a key at minimal distance, the smaller one on a tie', () => {
    fc.assert(fc.property(fc.integer({ min: -100, max: 100 }), fc.uniqueArray(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 8 }), (t, keys) => {
      const k = findNearestKey(t, keys)!
      const d = Math.abs(k - t)
      for (const other of keys) {
        expect(Math.abs(other - t)).toBeGreaterThanOrEqual(d)
        if (Math.abs(other - t) === d) expect(k).toBeLessThanOrEqual(other)
      }
    }))
  })
})

describe('bit keys', () => {
  it('should sort, format both styles and parse both back', () => {
    expect(bitKey([4, 2])).toBe('2,4')
    expect(bitTuple([4, 2])).toBe('(2, 4)')
    expect(bitTuple([4])).toBe('(4,)')
    expect(parseBitKey('2,4')).toEqual([2, 4])
    expect(parseBitKey('(4, 2)')).toEqual([2, 4])
    expect(parseBitKey('(4,)')).toEqual([4])
    expect(parseBitKey('4')).toEqual([4])
    for (const bad of ['', '()', '2;4', '(2, 5)', 'a', '2,,4']) expect(parseBitKey(bad)).toBeNull()
    expect(() => bitKey([5])).toThrow(/Invalid bit width 5/)
  })
})

function table(): LookupTable {
  const t: LookupTable = new Map()
  setEntry(t, 4, 4096, [2, 4], createKernelConfig({ bit_width: 2, tile_size_m: 128, tile_size_n: 128, num_simdgroups: 16 }))
  setEntry(t, 4, 4096, [4, 3], createKernelConfig({ bit_width: 3, tile_size_m: 96, tile_size_n: 96 }))
  setEntry(t, 16, 2048, [4], createKernelConfig({ kernel_variant: 'prefill' }))
  return t
}

describe('selectFromTable', () => {
  it('should return an exact match with zero distance', () => {
    const s = selectFromTable(table(), 4, 4096, [4, 2], mappings)!
    expect(s.method).toBe('exact')
    expect(s.config.tile_size_m).toBe(128)
    expect(s.distance).toEqual({ batch: 0, hidden: 0 })
    expect(selectFromTable(table(), 4, 4096, [3, 4], mappings)!.config.bit_width).toBe(3)
    expect(countEntries(table())).toBe(3)
  })

  it('should fall back to the nearest batch (6→4) and say how far it was', () => {
    const s = selectFromTable(table(), 6, 4096, [2, 4], mappings)!
    expect(s.method).toBe('nearest_batch')
    expect(s.key).toEqual({ batch: 4, hidden: 4096, bits: '2,4' })
    expect(s.distance).toEqual({ batch: 2, hidden: 0 })
  })

  it('should fall back to the nearest hidden (5120→4096) within an exact batch', () => {
    const s = selectFromTable(table(), 4, 5120, [2, 4], mappings)!
    expect(s.method).toBe('nearest_hidden')
    expect(s.distance).toEqual({ batch: 0, hidden: 1024 })
  })

  it('should try only one nearest candidate, as upstream, then use the default by bit width', () => {
    // Nearest batch to 12 is 16, whose only hidden is 2048 and holds no (2, 4): default, even
    // though batch 4 has (2, 4).
    const s = selectFromTable(table(), 12, 4096, [2, 4], mappings)!
    expect(s.method).toBe('default')
    expect(s.key).toBeNull()
    expect(s.distance).toBeNull()
    expect(s.config).toMatchObject({ bit_width: 2, tile_size_m: 128, num_simdgroups: 16, kernel_variant: 'base', batch_strategy: 'hybrid' })
  })

  it('should build the default from the narrowest width, decode for batch 1, 4 bits when none given', () => {
    const empty: LookupTable = new Map()
    expect(selectFromTable(empty, 1, 4096, [8, 4], mappings)!.config).toMatchObject({ bit_width: 4, tile_size_m: DEFAULT_TILE_SIZE_MAPPING[4], kernel_variant: 'decode', num_simdgroups: 8 })
    expect(selectFromTable(empty, 2, 4096, [], mappings)!.config).toMatchObject({ bit_width: 4, kernel_variant: 'base' })
  })

  it('should return null without fallback when nothing matches', () => {
    expect(selectFromTable(new Map(), 4, 4096, [4], mappings, false)).toBeNull()
    expect(selectFromTable(table(), 4, 4096, [8], mappings, false)).toBeNull()
  })
})
