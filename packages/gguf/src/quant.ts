/**
 * Q8_0 and Q4_0 block encoders and decoders, bit-exact with ggml's reference quantizers
 * (`quantize_row_q8_0_ref` and `quantize_row_q4_0_ref` in ggml/src/ggml-quants.c). Every
 * intermediate is rounded to float32 with Math.fround because the C code computes in float.
 */
import { KerneltuneError } from '@kerneltune/core'
import { f16ToF32, f32ToF16 } from './f16.ts'

export const QK8_0 = 32
export const QK4_0 = 32
const Q8_0_BYTES = 34
const Q4_0_BYTES = 18
const fr = Math.fround

function checkLength(n: number, what: string): void {
  if (n % 32 !== 0) {
    throw new KerneltuneError('INVALID_INPUT', `${what} needs a multiple of 32 values, got ${n}; pad the row to whole 32-value blocks`)
  }
}

/** C `roundf`: halves round away from zero (Math.round rounds them up). */
function roundf(v: number): number {
  return v < 0 ? -Math.floor(-v + 0.5) : Math.floor(v + 0.5)
}

/** Quantizes to Q8_0: per 32 values, f16 scale d = amax / 127 and q = roundf(x / d) as int8. */
export function encodeQ8_0(x: ArrayLike<number>, out: Uint8Array = new Uint8Array((x.length / QK8_0) * Q8_0_BYTES), outOffset = 0): Uint8Array {
  checkLength(x.length, 'Q8_0')
  const blocks = x.length / QK8_0
  for (let b = 0; b < blocks; b++) {
    const base = b * QK8_0
    let amax = 0
    for (let j = 0; j < QK8_0; j++) amax = Math.max(amax, Math.abs(fr(x[base + j]!)))
    const d = fr(amax / 127)
    const id = d !== 0 ? fr(1 / d) : 0
    const o = outOffset + b * Q8_0_BYTES
    const h = f32ToF16(d)
    out[o] = h & 0xff
    out[o + 1] = h >>> 8
    for (let j = 0; j < QK8_0; j++) out[o + 2 + j] = roundf(fr(fr(x[base + j]!) * id)) & 0xff
  }
  return out
}

export function decodeQ8_0(bytes: Uint8Array, n = (bytes.length / Q8_0_BYTES) * QK8_0): Float32Array {
  const out = new Float32Array(n)
  for (let b = 0; b < n / QK8_0; b++) {
    const o = b * Q8_0_BYTES
    const d = f16ToF32(bytes[o]! | (bytes[o + 1]! << 8))
    for (let j = 0; j < QK8_0; j++) out[b * QK8_0 + j] = d * ((bytes[o + 2 + j]! << 24) >> 24)
  }
  return out
}

/**
 * Quantizes to Q4_0: per 32 values, d = max / -8 where max is the signed value of largest
 * magnitude, q = min(15, trunc(x / d + 8.5)); element j goes in the low nibble of byte j and
 * element j + 16 in its high nibble.
 */
export function encodeQ4_0(x: ArrayLike<number>, out: Uint8Array = new Uint8Array((x.length / QK4_0) * Q4_0_BYTES), outOffset = 0): Uint8Array {
  checkLength(x.length, 'Q4_0')
  const blocks = x.length / QK4_0
  for (let b = 0; b < blocks; b++) {
    const base = b * QK4_0
    let amax = 0
    let max = 0
    for (let j = 0; j < QK4_0; j++) {
      const v = fr(x[base + j]!)
      if (amax < Math.abs(v)) {
        amax = Math.abs(v)
        max = v
      }
    }
    const d = fr(max / -8)
    const id = d !== 0 ? fr(1 / d) : 0
    const o = outOffset + b * Q4_0_BYTES
    const h = f32ToF16(d)
    out[o] = h & 0xff
    out[o + 1] = h >>> 8
    for (let j = 0; j < QK4_0 / 2; j++) {
      const x0 = fr(fr(x[base + j]!) * id)
      const x1 = fr(fr(x[base + QK4_0 / 2 + j]!) * id)
      const q0 = Math.min(15, Math.trunc(fr(x0 + 8.5)))
      const q1 = Math.min(15, Math.trunc(fr(x1 + 8.5)))
      out[o + 2 + j] = q0 | (q1 << 4)
    }
  }
  return out
}

export function decodeQ4_0(bytes: Uint8Array, n = (bytes.length / Q4_0_BYTES) * QK4_0): Float32Array {
  const out = new Float32Array(n)
  for (let b = 0; b < n / QK4_0; b++) {
    const o = b * Q4_0_BYTES
    const d = f16ToF32(bytes[o]! | (bytes[o + 1]! << 8))
    for (let j = 0; j < QK4_0 / 2; j++) {
      const q = bytes[o + 2 + j]!
      out[b * QK4_0 + j] = d * ((q & 0x0f) - 8)
      out[b * QK4_0 + QK4_0 / 2 + j] = d * ((q >>> 4) - 8)
    }
  }
  return out
}
