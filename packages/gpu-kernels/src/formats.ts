/**
 * Weight formats: ggml-compatible packing (what `makeProblemData` returns and what bytes-moved
 * counts) and the GPU layout the kernels read.
 *
 * ggml layouts (little-endian, one weight row after another, k/32 blocks per row):
 * - q4_0: 18-byte block = f16 scale d + 16 bytes of 4-bit quants; byte j holds weight j in its low
 *   nibble and weight j+16 in its high nibble; value = (q - 8) * d.
 * - q8_0: 34-byte block = f16 scale d + 32 int8 quants; value = q * d.
 * - f16: 2 bytes per weight.
 *
 * kerneltune's own low-bit formats (NOT ggml's Q2_K/Q3_K, which are 256-weight super-blocks with
 * per-16 sub-block scales; these are plain 32-weight blocks with one f16 scale, like q4_0):
 * - q2_0: 10-byte block = f16 scale d + 8 bytes; byte j (0..7) holds weights j, j+8, j+16, j+24
 *   in bits 0-1, 2-3, 4-5, 6-7; value = (q - 2) * d, q in 0..3.
 * - q3_0: 14-byte block = f16 scale d + 8 bytes of low 2-bit planes laid out exactly as q2_0 +
 *   4 bytes of high bits (bit i of that little-endian u32 is bit 2 of weight i's q);
 *   value = (q - 4) * d, q in 0..7. Splitting the 3 bits into planes means no quant straddles a
 *   u32 word on the GPU.
 * Both quantise like q4_0: the signed value of largest magnitude maps exactly to the lowest
 * level (d = max / -2 or max / -4), q = min(qmax, trunc(v / d + offset + 0.5)).
 *
 * GPU layout: 10-, 14-, 18- and 34-byte blocks are not 4-byte aligned and WGSL storage buffers are
 * read in u32 words, so blocks are split into a quants array (2, 3, 4 or 8 u32 words per block:
 * q2_0, q3_0, q4_0, q8_0) and a scales
 * array (two f16 scales per u32, read with unpack2x16float). The split keeps the same bytes, so
 * the GPU reads exactly as many bytes as the ggml format holds (plus at most 2 bytes of padding).
 */
import type { WeightFormat } from './types.ts'
import { f16ToF32, f32ToF16 } from '@kerneltune/core'

export const BLOCK = 32

/** Bytes of one 32-weight block in the packed format. */
export function blockBytes(format: WeightFormat): number {
  switch (format) {
    case 'q2_0': return 10
    case 'q3_0': return 14
    case 'q4_0': return 18
    case 'q8_0': return 34
    default: return 64
  }
}

/** Offset subtracted from the unsigned quant of the sub-byte formats: value = (q - offset) * d. */
function lowBitOffset(format: 'q2_0' | 'q3_0' | 'q4_0'): number {
  return format === 'q2_0' ? 2 : format === 'q3_0' ? 4 : 8
}

/** q2_0/q3_0: weight i's low 2 bits live in byte i % 8 at bit 2·⌊i/8⌋ of the low plane. */
function packLowBit(format: 'q2_0' | 'q3_0', qs: ArrayLike<number>, out: Uint8Array, o: number): void {
  for (let j = 0; j < 8; j++) {
    out[o + j] = (qs[j]! & 3) | ((qs[j + 8]! & 3) << 2) | ((qs[j + 16]! & 3) << 4) | ((qs[j + 24]! & 3) << 6)
  }
  if (format === 'q3_0') {
    for (let b = 0; b < 4; b++) {
      let h = 0
      for (let i = 0; i < 8; i++) h |= ((qs[8 * b + i]! >> 2) & 1) << i
      out[o + 8 + b] = h
    }
  }
}

function unpackLowBit(format: 'q2_0' | 'q3_0', packed: Uint8Array, o: number, i: number): number {
  const lo = (packed[o + (i & 7)]! >> (2 * (i >> 3))) & 3
  return format === 'q3_0' ? lo | (((packed[o + 8 + (i >> 3)]! >> (i & 7)) & 1) << 2) : lo
}

/** Bytes of an n×k weight matrix in the packed format. */
export function weightBytes(format: WeightFormat, n: number, k: number): number {
  return (n * k / BLOCK) * blockBytes(format)
}

/** IEEE half conversion (ties to even), shared with the GGUF codecs through @kerneltune/core. */
export const toF16Bits = f32ToF16
export const fromF16Bits = f16ToF32

/** Quantises one row of k floats (k a multiple of 32) into the packed format, as ggml does. */
export function quantizeRow(format: WeightFormat, values: ArrayLike<number>, out: Uint8Array, offset = 0): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
  const nb = values.length / BLOCK
  for (let b = 0; b < nb; b++) {
    const base = b * BLOCK
    const o = offset + b * blockBytes(format)
    if (format === 'f16') {
      for (let i = 0; i < BLOCK; i++) view.setUint16(o + 2 * i, toF16Bits(values[base + i]!), true)
      continue
    }
    // q2_0/q3_0/q4_0 keep the sign of the largest-magnitude value so that it maps to the lowest
    // level (-2, -4, -8) exactly.
    let amax = 0
    let max = 0
    for (let i = 0; i < BLOCK; i++) {
      const v = values[base + i]!
      if (Math.abs(v) > amax) { amax = Math.abs(v); max = v }
    }
    const d = format === 'q8_0' ? amax / 127 : max / -lowBitOffset(format)
    const id = d ? 1 / d : 0
    view.setUint16(o, toF16Bits(d), true)
    if (format === 'q2_0' || format === 'q3_0') {
      const off = lowBitOffset(format)
      const qs = new Array<number>(BLOCK)
      for (let j = 0; j < BLOCK; j++) qs[j] = Math.min(2 * off - 1, Math.trunc(values[base + j]! * id + off + 0.5))
      packLowBit(format, qs, out, o + 2)
    } else if (format === 'q4_0') {
      for (let j = 0; j < 16; j++) {
        const q0 = Math.min(15, Math.trunc(values[base + j]! * id + 8.5))
        const q1 = Math.min(15, Math.trunc(values[base + j + 16]! * id + 8.5))
        out[o + 2 + j] = q0 | (q1 << 4)
      }
    } else {
      for (let j = 0; j < BLOCK; j++) {
        // roundf: halves away from zero, as ggml
        const v = values[base + j]! * id
        view.setInt8(o + 2 + j, Math.sign(v) * Math.round(Math.abs(v)))
      }
    }
  }
}

/** Dequantises row `row` of an n×k packed matrix into `out` (k floats). */
export function dequantizeRow(format: WeightFormat, packed: Uint8Array, k: number, row: number, out: Float64Array | Float32Array): void {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength)
  const bb = blockBytes(format)
  const nb = k / BLOCK
  for (let b = 0; b < nb; b++) {
    const o = (row * nb + b) * bb
    const base = b * BLOCK
    if (format === 'f16') {
      for (let i = 0; i < BLOCK; i++) out[base + i] = fromF16Bits(view.getUint16(o + 2 * i, true))
      continue
    }
    const d = fromF16Bits(view.getUint16(o, true))
    if (format === 'q2_0' || format === 'q3_0') {
      const off = lowBitOffset(format)
      for (let j = 0; j < BLOCK; j++) out[base + j] = (unpackLowBit(format, packed, o + 2, j) - off) * d
    } else if (format === 'q4_0') {
      for (let j = 0; j < 16; j++) {
        const byte = packed[o + 2 + j]!
        out[base + j] = ((byte & 15) - 8) * d
        out[base + j + 16] = ((byte >> 4) - 8) * d
      }
    } else {
      for (let j = 0; j < BLOCK; j++) out[base + j] = view.getInt8(o + 2 + j) * d
    }
  }
}

export interface GpuWeights {
  /** q2_0: 2, q3_0: 3, q4_0: 4, q8_0: 8 words per block; f16: the halves, two per word. */
  quants: Uint32Array
  /** Block scales as f16, two per word (absent for f16). */
  scales?: Uint32Array
}

/** Splits ggml-packed weights into the GPU layout described at the top of this file. */
export function toGpuLayout(format: WeightFormat, packed: Uint8Array, n: number, k: number): GpuWeights {
  const blocks = (n * k) / BLOCK
  if (packed.length !== weightBytes(format, n, k)) {
    throw new Error(`packed ${format} weights for ${n}x${k} need ${weightBytes(format, n, k)} bytes, got ${packed.length}`)
  }
  if (format === 'f16') {
    const copy = new Uint8Array(packed.length)
    copy.set(packed)
    return { quants: new Uint32Array(copy.buffer) }
  }
  const bb = blockBytes(format)
  const qBytes = bb - 2
  const quantBytes = new Uint8Array(blocks * qBytes)
  const scaleBytes = new Uint8Array(Math.ceil(blocks / 2) * 4)
  for (let b = 0; b < blocks; b++) {
    const o = b * bb
    scaleBytes[2 * b] = packed[o]!
    scaleBytes[2 * b + 1] = packed[o + 1]!
    quantBytes.set(packed.subarray(o + 2, o + bb), b * qBytes)
  }
  return { quants: new Uint32Array(quantBytes.buffer), scales: new Uint32Array(scaleBytes.buffer) }
}
