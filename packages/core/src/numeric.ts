/**
 * Small numeric building blocks several packages share: a seeded generator whose stream is the
 * same on every runtime, and IEEE 754 half-precision conversion rounding to nearest even, as
 * ggml does (F16C `_cvtss_sh(x, 0)` on x86, and the same rounding in its software fallback).
 */

/** mulberry32: a tiny, fast, seeded generator of uniform values in [0, 1). Not for cryptography. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const scratch = new Float32Array(1)
const bits = new Uint32Array(scratch.buffer)

/** The f16 bit pattern nearest to `x` (ties to even; overflow gives ±inf, NaN stays NaN). */
export function f32ToF16(x: number): number {
  scratch[0] = x
  const b = bits[0]!
  const sign = (b >>> 16) & 0x8000
  const exp = (b >>> 23) & 0xff
  let mant = b & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  const e = exp - 127 + 15
  if (e >= 0x1f) return sign | 0x7c00
  if (e <= 0) {
    // Subnormal f16: h counts units of 2^-24.
    if (e < -10) return sign
    mant |= 0x800000
    const shift = 14 - e
    let h = mant >>> shift
    const rem = mant & ((1 << shift) - 1)
    const half = 1 << (shift - 1)
    if (rem > half || (rem === half && (h & 1) === 1)) h++
    return sign | h
  }
  let h = (e << 10) | (mant >>> 13)
  const rem = mant & 0x1fff
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) === 1)) h++
  return sign | h
}

/** The value of an f16 bit pattern. */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exp = (h >>> 10) & 0x1f
  const mant = h & 0x3ff
  if (exp === 0) return sign * mant * 2 ** -24
  if (exp === 0x1f) return mant ? Number.NaN : sign * Number.POSITIVE_INFINITY
  return sign * (1 + mant / 1024) * 2 ** (exp - 15)
}
