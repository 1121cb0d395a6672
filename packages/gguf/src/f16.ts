/**
 * IEEE 754 half precision conversion, rounding to nearest even as ggml does (F16C
 * `_cvtss_sh(x, 0)` on x86, and the same rounding in its software fallback).
 */
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

/** Encodes f32 values as little-endian f16 bytes. */
export function encodeF16(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 2)
  for (let i = 0; i < values.length; i++) {
    const h = f32ToF16(values[i]!)
    out[2 * i] = h & 0xff
    out[2 * i + 1] = h >>> 8
  }
  return out
}

export function decodeF16(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.length >>> 1)
  for (let i = 0; i < out.length; i++) out[i] = f16ToF32(bytes[2 * i]! | (bytes[2 * i + 1]! << 8))
  return out
}

/** Encodes f32 values as little-endian f32 bytes. */
export function encodeF32(values: ArrayLike<number>): Uint8Array {
  const f = Float32Array.from(values)
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength)
}
