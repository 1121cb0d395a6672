import { describe, expect, it } from 'vitest'
import { QUANT_TYPES } from '@kerneltune/core'
import { BLOCK_LAYOUTS, bitsPerWeight, bytesPerWeight, tensorBytes, weightBytesOf } from './bytes.ts'

describe('bytesPerWeight', () => {
  it.each([
    ['Q4_0', 18 / 32], ['Q4_1', 20 / 32], ['Q5_0', 22 / 32], ['Q5_1', 24 / 32], ['Q8_0', 34 / 32], ['Q8_1', 36 / 32],
    ['Q2_K', 84 / 256], ['Q3_K', 110 / 256], ['Q4_K', 144 / 256], ['Q5_K', 176 / 256], ['Q6_K', 210 / 256], ['Q8_K', 292 / 256],
    ['IQ2_XXS', 66 / 256], ['IQ2_XS', 74 / 256], ['IQ2_S', 82 / 256], ['IQ3_XXS', 98 / 256], ['IQ3_S', 110 / 256],
    ['IQ1_S', 50 / 256], ['IQ1_M', 56 / 256], ['IQ4_NL', 18 / 32], ['IQ4_XS', 136 / 256], ['TQ1_0', 54 / 256], ['TQ2_0', 66 / 256],
    ['MXFP4', 17 / 32], ['F16', 2], ['BF16', 2], ['F32', 4], ['FP8_E4M3', 1], ['FP8_E5M2', 1],
  ])('should give %s its block layout size', (q, bytes) => {
    expect(bytesPerWeight(q)).toBe(bytes)
  })

  it('should have a layout for every quantization core knows, and accept upstream spellings', () => {
    for (const q of QUANT_TYPES) expect(BLOCK_LAYOUTS[q].blockBytes).toBeGreaterThan(0)
    expect(bytesPerWeight('Q4K')).toBe(0.5625)
    expect(bytesPerWeight('Q4_K_M')).toBe(0.5625)
    expect(bitsPerWeight('Q6_K')).toBe(6.5625)
    expect(() => bytesPerWeight('Q9')).toThrow(/unknown quantization "Q9"; accepted: F32/)
  })

  it('should count whole blocks and sum a tensor-type summary', () => {
    expect(tensorBytes('Q4_K', 256)).toBe(144)
    expect(tensorBytes('Q4_K', 257)).toBe(288)
    expect(weightBytesOf([{ type: 'Q4_K', elements: 512 }, { type: 'F32', elements: 10 }, { type: 'I32', elements: 2 }])).toBe(288 + 40 + 8)
  })
})
