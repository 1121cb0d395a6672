import { describe, expect, it } from 'vitest'
import { compatSimdgroups, compatTileSizes, generateCompatConfigs, generateConfigs, recommendedFp32Acc, recommendedVariant } from './config-generation.ts'
import { DEFAULT_SIMDGROUP_MAPPING, DEFAULT_TILE_SIZE_MAPPING } from './constants.ts'

describe('generateConfigs', () => {
  it('should give the full product: 108 configs for 2/3/4 bits and 72 for 8 bits', () => {
    expect(generateConfigs([2])).toHaveLength(108)
    expect(generateConfigs([3])).toHaveLength(108)
    expect(generateConfigs([4])).toHaveLength(108)
    expect(generateConfigs([8])).toHaveLength(72)
    expect(new Set(generateConfigs([4]).map((c) => `${c.tile_size_m}x${c.tile_size_n}`))).toEqual(new Set(['32x32', '64x64', '64x32']))
  })

  it('should narrow variants and strategies when asked', () => {
    const c = generateConfigs([4, 8], { variants: ['decode'], strategies: ['hybrid'] })
    expect(c).toHaveLength(3 * 3 + 2 * 3)
    expect(c.every((x) => x.kernel_variant === 'decode' && x.batch_strategy === 'hybrid')).toBe(true)
  })
})

describe('generateCompatConfigs', () => {
  it('should derive square tiles from the tile mapping', () => {
    expect(compatTileSizes(2)).toEqual([64, 128])
    expect(compatTileSizes(3)).toEqual([48, 96])
    expect(compatTileSizes(4)).toEqual([32, 64, 96])
    expect(compatTileSizes(8)).toEqual([32, 64, 96])
  })

  it('should derive simdgroups {4, mapping[bw], 16} without duplicates', () => {
    expect(compatSimdgroups(2)).toEqual([4, 16])
    expect(compatSimdgroups(4)).toEqual([4, 8, 16])
    expect(compatSimdgroups(8)).toEqual([4, 16])
  })

  it('should produce base + decode + prefill for one bit width, and cover mixed widths', () => {
    const one = generateCompatConfigs([4])
    expect(one).toHaveLength(3 * 3 * 3)
    expect(new Set(one.map((c) => c.kernel_variant))).toEqual(new Set(['base', 'decode', 'prefill']))
    expect(one.every((c) => c.tile_size_m === c.tile_size_n && c.batch_strategy === 'hybrid')).toBe(true)
    const mixed = generateCompatConfigs([2, 4], { useDecode: false, usePrefill: false })
    expect(new Set(mixed.map((c) => c.bit_width))).toEqual(new Set([2, 4]))
    expect(mixed.every((c) => c.kernel_variant === 'base')).toBe(true)
    expect(Math.max(...mixed.filter((c) => c.bit_width === 2).map((c) => c.tile_size_m)))
      .toBeGreaterThanOrEqual(Math.max(...mixed.filter((c) => c.bit_width === 4).map((c) => c.tile_size_m)))
  })

  it('should have mappings that cover 2, 3, 4 and 8 bits', () => {
    for (const b of [2, 3, 4, 8]) {
      expect(DEFAULT_TILE_SIZE_MAPPING[b]).toBeGreaterThan(0)
      expect(DEFAULT_SIMDGROUP_MAPPING[b]).toBeGreaterThan(0)
    }
    expect(DEFAULT_TILE_SIZE_MAPPING).toEqual({ 2: 128, 3: 96, 4: 64, 8: 64 })
    expect(DEFAULT_SIMDGROUP_MAPPING[4]).toBe(8)
  })
})

describe('guide rules', () => {
  it('should pick decode 1, prefill 2–16, base 17–32, large_batch 33+ and fp32 from hidden 1024', () => {
    expect([1, 2, 16, 17, 32, 33].map(recommendedVariant)).toEqual(['decode', 'prefill', 'prefill', 'base', 'base', 'large_batch'])
    expect(recommendedFp32Acc(1023)).toBe(false)
    expect(recommendedFp32Acc(1024)).toBe(true)
  })
})
