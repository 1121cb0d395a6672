/**
 * Weight producers for synthetic models. Each tensor draws from its own seeded stream (model seed
 * and tensor name), so its values do not depend on write order.
 *
 * Two fills: 'random' generates and encodes every value; 'tiled' generates and encodes only a
 * tile of the first whole rows (about 64k values: exactly the bytes 'random' starts with) and
 * repeats those bytes to the end of the tensor (the last copy cut at a row boundary). Quant
 * blocks never cross a row, so every row has the same byte length and whole rows are a valid
 * stretch of the tensor wherever they are placed. llama.cpp's matmul kernels have no sparsity or
 * value-dependent paths, so a tiled file runs at the same speed as a fully random one of the same
 * shapes and types, and is written at disk speed instead of PRNG speed. The tile is small because
 * generating it is the only per-tensor cost left: a 1M-value tile per tensor would still be 300M
 * generated values for an 8B model, against 20M with 64k.
 */
import { encodeF16, encodeF32 } from './f16.ts'
import { ggmlRowBytes, type GgmlTypeName } from './ggml-types.ts'
import { encodeQ4_0, encodeQ8_0 } from './quant.ts'
import { fillUniform, hashSeed, mulberry32 } from './random.ts'
import type { GgufTensor } from './writer.ts'

export const SYNTH_FILLS = ['random', 'tiled'] as const
export type SynthFill = (typeof SYNTH_FILLS)[number]

/** Values generated per chunk: about 4 MB of f32 scratch however large the tensor. */
export const SYNTH_CHUNK_VALUES = 1 << 20

/** Values generated per tensor by the 'tiled' fill (rounded down to whole rows, at least one). */
export const SYNTH_TILE_VALUES = 1 << 16

function encode(type: GgmlTypeName, values: Float32Array): Uint8Array {
  switch (type) {
    case 'F32': return encodeF32(values)
    case 'F16': return encodeF16(values)
    case 'Q8_0': return encodeQ8_0(values)
    case 'Q4_0': return encodeQ4_0(values)
  }
}

/** Whole rows holding about `values` values (at least one row). */
export function rowsFor(values: number, rowLength: number): number {
  return Math.max(1, Math.floor(values / rowLength))
}

/** `bytes` bytes of `tile` repeated; both are whole rows, so the last, partial copy is too. */
function repeated(tile: Uint8Array, bytes: number): Uint8Array {
  if (bytes <= tile.length) return tile.subarray(0, bytes)
  const out = new Uint8Array(bytes)
  for (let at = 0; at < bytes; at += tile.length) out.set(tile.subarray(0, Math.min(tile.length, bytes - at)), at)
  return out
}

export function randomTensor(name: string, dims: number[], type: GgmlTypeName, seed: number, fill: SynthFill = 'random'): GgufTensor {
  const rowLength = dims[0]!
  const rows = dims.slice(1).reduce((a, b) => a * b, 1)
  // Uniform in ±1/sqrt(fan-in) keeps activations bounded through the layers.
  const scale = 1 / Math.sqrt(rowLength)
  return {
    name,
    dims,
    type,
    *data() {
      const next = mulberry32(hashSeed(seed, name))
      const perChunk = rowsFor(SYNTH_CHUNK_VALUES, rowLength)
      if (fill === 'tiled') {
        const tileRows = Math.min(rows, rowsFor(SYNTH_TILE_VALUES, rowLength))
        const tile = encode(type, fillUniform(new Float32Array(tileRows * rowLength), next, scale))
        const rowBytes = ggmlRowBytes(type, rowLength)
        // Chunks of whole tiles, so the tensor is the tile repeated end to end (the last copy cut
        // at a row). One chunk buffer is yielded again and again; it never changes once built.
        const chunkRows = Math.min(rows, Math.max(1, Math.floor(perChunk / tileRows)) * tileRows)
        const chunk = repeated(tile, chunkRows * rowBytes)
        for (let r = 0; r < rows; r += chunkRows) yield chunk.subarray(0, Math.min(chunkRows, rows - r) * rowBytes)
        return
      }
      for (let r = 0; r < rows; r += perChunk) {
        const n = Math.min(perChunk, rows - r) * rowLength
        yield encode(type, fillUniform(new Float32Array(n), next, scale))
      }
    },
  }
}

export function onesTensor(name: string, length: number): GgufTensor {
  return { name, dims: [length], type: 'F32', *data() { yield encodeF32(new Float32Array(length).fill(1)) } }
}
