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
 * GPU layout: 18- and 34-byte blocks are not 4-byte aligned and WGSL storage buffers are read in
 * u32 words, so blocks are split into a quants array (4 or 8 u32 words per block) and a scales
 * array (two f16 scales per u32, read with unpack2x16float). The split keeps the same bytes, so
 * the GPU reads exactly as many bytes as the ggml format holds (plus at most 2 bytes of padding).
 */
import type { WeightFormat } from './types.ts'
import { f16ToF32, f32ToF16 } from '@kerneltune/core'

export const BLOCK = 32

/** Bytes of one 32-weight block in the packed format. */
export function blockBytes(format: WeightFormat): number {
  return format === 'q4_0' ? 18 : format === 'q8_0' ? 34 : 64
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
    // q4_0 keeps the sign of the largest-magnitude value so that it maps to -8 exactly.
    let amax = 0
    let max = 0
    for (let i = 0; i < BLOCK; i++) {
      const v = values[base + i]!
      if (Math.abs(v) > amax) { amax = Math.abs(v); max = v }
    }
    const d = format === 'q4_0' ? max / -8 : amax / 127
    const id = d ? 1 / d : 0
    view.setUint16(o, toF16Bits(d), true)
    if (format === 'q4_0') {
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
    if (format === 'q4_0') {
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
  /** q4_0: 4 words per block; q8_0: 8 words per block; f16: the halves, two per word. */
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
