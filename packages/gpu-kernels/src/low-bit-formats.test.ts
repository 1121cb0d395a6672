/**
 * q2_0 and q3_0: exact bit layouts, the GPU split, and that the tolerance catches a wrong plane.
 * The layouts are kerneltune's own (see formats.ts), so these tests pin them bit by bit.
 */
import { describe, it, expect } from 'vitest'
import { dequantizeRow, fromF16Bits, quantizeRow, toGpuLayout, weightBytes } from './formats.ts'
import { compareWithReference, makeProblemData, referenceMatmul, referenceWithBounds } from './reference.ts'
import type { MatmulProblem } from './types.ts'

describe('q2_0', () => {
  it('should map the signed block maximum to -2 and pack weight i at byte i%8, bits 2*(i/8)', () => {
    // d = -4 / -2 = 2; levels (q - 2) * 2 = -4, -2, 0, 2
    const values = Array.from({ length: 32 }, (_, i) => (i === 0 ? -4 : i === 8 ? 2 : i === 17 ? -2 : i === 31 ? 3.9 : 0))
    const packed = new Uint8Array(10)
    quantizeRow('q2_0', values, packed)
    expect(fromF16Bits(packed[0]! | (packed[1]! << 8))).toBe(2)
    // byte 0: weights 0 (q0), 8 (q3), 16 (q2), 24 (q2)
    expect(packed[2]).toBe(0 | (3 << 2) | (2 << 4) | (2 << 6))
    // byte 1: weights 1 (q2), 9 (q2), 17 (q1), 25 (q2)
    expect(packed[3]).toBe(2 | (2 << 2) | (1 << 4) | (2 << 6))
    // byte 7: weight 31 = 3.9 clamps to q3 (value 2)
    expect(packed[9]! >> 6).toBe(3)
    const back = new Float64Array(32)
    dequantizeRow('q2_0', packed, 32, 0, back)
    expect([back[0], back[8], back[17], back[31], back[5]]).toEqual([-4, 2, -2, 2, 0])
  })
})

describe('q3_0', () => {
  it('should keep the low two bits as q2_0 does and bit 2 of weight i at bit i of the high word', () => {
    // d = 8 / -4 = -2; levels (q - 4) * -2: q0 = 8, q7 = -6
    const values = Array.from({ length: 32 }, (_, i) => (i === 3 ? 8 : i === 12 ? -6 : i === 30 ? 2 : 0))
    const packed = new Uint8Array(14)
    quantizeRow('q3_0', values, packed)
    expect(fromF16Bits(packed[0]! | (packed[1]! << 8))).toBe(-2)
    const q = (i: number) => ((packed[2 + (i % 8)]! >> (2 * Math.floor(i / 8))) & 3) | (((packed[10 + (i >> 3)]! >> (i & 7)) & 1) << 2)
    expect(q(3)).toBe(0)
    expect(q(12)).toBe(7)
    expect(q(30)).toBe(3)
    expect(q(0)).toBe(4)
    const high = packed[10]! | (packed[11]! << 8) | (packed[12]! << 16) | (packed[13]! << 24)
    // every weight but 3 and 30 has q >= 4 (values <= 0 with a negative scale)
    expect(high >>> 0).toBe((0xffffffff & ~(1 << 3) & ~(1 << 30)) >>> 0)
    const back = new Float64Array(32)
    dequantizeRow('q3_0', packed, 32, 0, back)
    expect([back[3], back[12], back[30], back[0]]).toEqual([8, -6, 2, -0])
  })
  it('should split blocks into 3 quant words and a scales array without losing bytes', () => {
    // Three packed rows of 64 weights (two blocks each), as the benchmarks make them.
    const packed = makeProblemData({ format: 'q3_0', m: 1, n: 3, k: 64 }, 4).weights
    const gpu = toGpuLayout('q3_0', packed, 3, 64)
    expect(gpu.quants.length).toBe(6 * 3)
    expect(gpu.scales!.length).toBe(3)
    const qb = new Uint8Array(gpu.quants.buffer)
    const sb = new Uint8Array(gpu.scales!.buffer)
    for (let b = 0; b < 6; b++) {
      expect([sb[2 * b], sb[2 * b + 1]]).toEqual([packed[14 * b], packed[14 * b + 1]])
      expect([...qb.subarray(12 * b, 12 * b + 12)]).toEqual([...packed.subarray(14 * b + 2, 14 * b + 14)])
    }
  })
  it('should give q2_0 a 2-word layout', () => {
    const p: MatmulProblem = { format: 'q2_0', m: 1, n: 2, k: 64 }
    const gpu = toGpuLayout('q2_0', makeProblemData(p, 1).weights, 2, 64)
    expect(gpu.quants.length).toBe(4 * 2)
    expect(gpu.scales!.length).toBe(2)
  })
})

describe('tolerance on low-bit formats', () => {
  it.each(['q2_0', 'q3_0'] as const)('should reject %s with swapped plane positions or a dropped high bit', (format) => {
    const p: MatmulProblem = { format, m: 2, n: 16, k: 256 }
    const { weights, activations } = makeProblemData(p, 5)
    const ref = referenceWithBounds(p, weights, activations)
    const bb = format === 'q2_0' ? 10 : 14
    const rotated = new Uint8Array(weights)
    // rotate the bit pairs of each low-plane byte: weight j takes weight j+8's quant
    for (let b = 0; b < rotated.length / bb; b++) {
      for (let j = 2; j < 10; j++) { const v = rotated[b * bb + j]!; rotated[b * bb + j] = ((v >> 2) | (v << 6)) & 255 }
    }
    expect(compareWithReference(ref, referenceMatmul(p, rotated, activations), p.k).correct).toBe(false)
    if (format === 'q3_0') {
      const dropped = new Uint8Array(weights)
      for (let b = 0; b < dropped.length / bb; b++) dropped[b * bb + 10] = 0
      expect(compareWithReference(ref, referenceMatmul(p, dropped, activations), p.k).correct).toBe(false)
    }
    expect(compareWithReference(ref, referenceMatmul(p, weights, activations), p.k).correct).toBe(true)
  })
})
