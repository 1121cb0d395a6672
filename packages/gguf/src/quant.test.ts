import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { decodeF16, encodeF16, f16ToF32, f32ToF16 } from './f16.ts'
import { decodeQ4_0, decodeQ8_0, encodeQ4_0, encodeQ8_0 } from './quant.ts'
import { F16_FIXTURES, QUANT_FIXTURES } from './quant-fixtures.ts'

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
const f32s = (n: number) =>
  fc.array(fc.float({ min: -1e4, max: 1e4, noNaN: true, noDefaultInfinity: true }), { minLength: n, maxLength: n })

// The scale d is stored as f16. Above 2^-14 its rounding error is relative (half an ulp, 2^-11 d);
// below, f16 is subnormal with a fixed spacing of 2^-24, so a tiny d rounds by up to 2^-25 in
// absolute terms, or to 0 (ggml's quantize_row_q8_0_ref does the same: it stores the f16 of d
// but computes the quants with the f32 1/d). Every decoded value is d16 * q, so that absolute
// error is multiplied by |q|: 127 for Q8_0, 8 for Q4_0.
const F16_HALF_SUBNORMAL = 2 ** -25
/** Largest |decoded - input| for a Q8_0 block whose largest magnitude is amax. */
const q8Bound = (amax: number) => (amax / 127) * 0.5 + amax * 2 ** -10 + 127 * F16_HALF_SUBNORMAL

describe('f16', () => {
  it('should round f32 to the same f16 bits as numpy (nearest, ties to even)', () => {
    for (const [x, bits] of F16_FIXTURES) expect([x, f32ToF16(x)]).toEqual([x, bits])
  })

  it('should round-trip every finite f16 bit pattern exactly', () => {
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0) continue // NaN payloads
      expect(f32ToF16(f16ToF32(h))).toBe(h)
    }
  })

  it('should encode and decode arrays within half a unit in the last place', () => {
    const xs = [0.1, -3.75, 1000.3, 2e-6]
    const back = decodeF16(encodeF16(xs))
    xs.forEach((x, i) => expect(Math.abs(back[i]! - x)).toBeLessThanOrEqual(Math.abs(x) * 2 ** -11 + 2 ** -25))
  })
})

describe('Q8_0', () => {
  it('should produce the exact bytes of llama.cpp reference quantizer', () => {
    for (const f of QUANT_FIXTURES) expect([f.name, hex(encodeQ8_0(f.values))]).toEqual([f.name, f.q8_0])
  })

  it('should decode to within d/2 (plus the f16 rounding of d) of the input', () => {
    fc.assert(
      fc.property(f32s(64), (xs) => {
        const x = Float32Array.from(xs)
        const y = decodeQ8_0(encodeQ8_0(x))
        for (let b = 0; b < 2; b++) {
          const block = x.subarray(b * 32, b * 32 + 32)
          const amax = Math.max(...Array.from(block, Math.abs))
          const bound = q8Bound(amax)
          for (let j = 0; j < 32; j++) expect(Math.abs(y[b * 32 + j]! - block[j]!)).toBeLessThanOrEqual(bound)
        }
      }),
    )
  })

  it('should keep a block whose scale underflows f16 within the bound, as ggml encodes it', () => {
    // fast-check seed 293357857 found this block: d = amax / 127 ~ 7.9e-33 is 0 in f16, the quants
    // (computed with the f32 1/d) are 127, so the value decodes to 0.
    const x = new Float32Array(32)
    x[31] = 1.004937925800463e-30
    const bytes = encodeQ8_0(x)
    expect([bytes[0], bytes[1], bytes[2 + 31]]).toEqual([0, 0, 127])
    const y = decodeQ8_0(bytes)
    expect(y[31]).toBe(0)
    expect(Math.abs(y[31]! - x[31]!)).toBeLessThanOrEqual(q8Bound(x[31]!))
  })

  it('should refuse a length that is not a whole number of blocks', () => {
    expect(() => encodeQ8_0(new Float32Array(33))).toThrow(/multiple of 32/)
  })
})

describe('Q4_0', () => {
  it('should produce the exact bytes of llama.cpp reference quantizer', () => {
    for (const f of QUANT_FIXTURES) expect([f.name, hex(encodeQ4_0(f.values))]).toEqual([f.name, f.q4_0])
  })

  it('should put element j in the low nibble and j + 16 in the high nibble', () => {
    // max = -8 gives d = 1, so q = trunc(x + 8.5): x = j - 8 maps to nibble j.
    const x = new Float32Array(32)
    x[0] = -8
    for (let j = 1; j < 16; j++) x[j] = j - 8
    for (let j = 0; j < 16; j++) x[16 + j] = 7 - j
    const bytes = encodeQ4_0(x)
    expect(bytes[0]! | (bytes[1]! << 8)).toBe(f32ToF16(1))
    for (let j = 0; j < 16; j++) expect([j, bytes[2 + j]! & 15, bytes[2 + j]! >> 4]).toEqual([j, j, 15 - j])
    expect(Array.from(decodeQ4_0(bytes))).toEqual(Array.from(x))
  })

  it('should decode to within one step d of the input (half a step except at the clamp)', () => {
    fc.assert(
      fc.property(f32s(64), (xs) => {
        const x = Float32Array.from(xs)
        const y = decodeQ4_0(encodeQ4_0(x))
        for (let b = 0; b < 2; b++) {
          const block = x.subarray(b * 32, b * 32 + 32)
          const amax = Math.max(...Array.from(block, Math.abs))
          const d = amax / 8
          for (let j = 0; j < 32; j++) {
            const err = Math.abs(y[b * 32 + j]! - block[j]!)
            const clamped = Math.abs(block[j]! / d) > 7.5
            expect(err).toBeLessThanOrEqual((clamped ? d : d / 2) + amax * 2 ** -9 + 8 * F16_HALF_SUBNORMAL)
          }
        }
      }),
    )
  })
})
