import { describe, it, expect } from 'vitest'
import { blockBytes, dequantizeRow, fromF16Bits, quantizeRow, toF16Bits, toGpuLayout, weightBytes } from './formats.ts'
import { makeProblemData, seededRandom } from './reference.ts'

describe('f16 conversion', () => {
  it('should round-trip values that are exact halves', () => {
    for (const v of [0, 1, -2, 0.5, 65504, -65504, 2 ** -14, 2 ** -24, 1.5, 3.140625]) {
      expect(fromF16Bits(toF16Bits(v))).toBe(v)
    }
  })
  it('should round to the nearest half within half an ulp', () => {
    const rand = seededRandom(3)
    for (let i = 0; i < 2000; i++) {
      const v = (rand() * 2 - 1) * 100
      const back = fromF16Bits(toF16Bits(v))
      const ulp = 2 ** (Math.floor(Math.log2(Math.abs(v))) - 10)
      expect(Math.abs(back - v)).toBeLessThanOrEqual(ulp / 2 + 1e-12)
    }
  })
  it('should saturate to infinity and keep NaN', () => {
    expect(fromF16Bits(toF16Bits(1e6))).toBe(Infinity)
    expect(Number.isNaN(fromF16Bits(toF16Bits(NaN)))).toBe(true)
  })
})

describe('quantizeRow / dequantizeRow', () => {
  const row = Float64Array.from({ length: 64 }, (_, i) => Math.sin(i * 0.7) * 0.05)
  it.each(['q2_0', 'q3_0', 'q4_0', 'q8_0', 'f16'] as const)('should reconstruct a %s row within its quantisation step (plus the f16 rounding of the scale)', (format) => {
    const packed = new Uint8Array(weightBytes(format, 1, 64))
    quantizeRow(format, row, packed)
    const back = new Float64Array(64)
    dequantizeRow(format, packed, 64, 0, back)
    const amax = 0.05
    const steps = { q2_0: amax / 2, q3_0: amax / 4, q4_0: amax / 8, q8_0: amax / 127, f16: amax / 1024 }
    const step = steps[format]
    // q2/3/4_0 clamp q at the top level, so values of the sign opposite the block maximum can be
    // off one step.
    const bound = format === 'q8_0' || format === 'f16' ? step * 0.6 : step * 1.1
    for (let i = 0; i < 64; i++) expect(Math.abs(back[i]! - row[i]!)).toBeLessThanOrEqual(bound)
  })
  it('should lay out q4_0 as ggml does (weight j low nibble, j+16 high nibble, offset 8)', () => {
    const values = Array.from({ length: 32 }, (_, i) => (i === 0 ? -8 : i === 16 ? 7 : 0))
    const packed = new Uint8Array(18)
    quantizeRow('q4_0', values, packed)
    expect(fromF16Bits(packed[0]! | (packed[1]! << 8))).toBe(1)
    expect(packed[2]).toBe(0 | (15 << 4))
    expect(packed[3]).toBe(8 | (8 << 4))
  })
  it('should size blocks as ggml does', () => {
    expect(blockBytes('q4_0')).toBe(18)
    expect(blockBytes('q8_0')).toBe(34)
    expect(blockBytes('q2_0')).toBe(10)
    expect(blockBytes('q3_0')).toBe(14)
    expect(weightBytes('f16', 4, 64)).toBe(512)
  })
})

describe('toGpuLayout', () => {
  it('should split q8_0 blocks into scales and quants without losing bytes', () => {
    // Three packed rows of 64 weights (two blocks each), as the benchmarks make them.
    const packed = makeProblemData({ format: 'q8_0', m: 1, n: 3, k: 64 }, 9).weights
    const gpu = toGpuLayout('q8_0', packed, 3, 64)
    expect(gpu.quants.byteLength).toBe(6 * 32)
    expect(gpu.scales!.byteLength).toBe(12)
    const qb = new Uint8Array(gpu.quants.buffer)
    const sb = new Uint8Array(gpu.scales!.buffer)
    for (let b = 0; b < 6; b++) {
      expect([sb[2 * b], sb[2 * b + 1]]).toEqual([packed[b * 34], packed[b * 34 + 1]])
      expect([...qb.subarray(b * 32, b * 32 + 32)]).toEqual([...packed.subarray(b * 34 + 2, b * 34 + 34)])
    }
  })
  it('should reject a buffer of the wrong size', () => {
    expect(() => toGpuLayout('q4_0', new Uint8Array(10), 1, 32)).toThrow(/18 bytes/)
  })
})
