/** f16 byte encoding of f32 arrays; the scalar conversion lives in @kerneltune/core. */
import { f16ToF32, f32ToF16 } from '@kerneltune/core'

export { f16ToF32, f32ToF16 }
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
