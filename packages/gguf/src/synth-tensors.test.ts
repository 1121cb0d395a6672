import { describe, expect, it } from 'vitest'
import { ggmlRowBytes } from './ggml-types.ts'
import { readGgufHeader } from './reader.ts'
import { synthLlama, type SynthLlamaOptions } from './synth-llama.ts'
import { SYNTH_CHUNK_VALUES, SYNTH_TILE_VALUES, rowsFor } from './synth-tensors.ts'
import { ggufBytes } from './writer.ts'

// Wide enough that the embeddings (1024 x 1536) and the FFN (1024 x 2752) span several chunks,
// the last one partial, so chunks of repeated tiles are cut at row boundaries too.
const opts: SynthLlamaOptions = { params: 1e7, hidden: 1024, layers: 1, vocabSize: 1536, quant: 'Q8_0', seed: 3 }

const equal = (x: Uint8Array, y: Uint8Array) => x.length === y.length && x.every((v, i) => v === y[i])
const fnv1a = (b: Uint8Array) => b.reduce((h, v) => Math.imul(h ^ v, 0x01000193) >>> 0, 0x811c9dc5).toString(16)

describe("synthLlama fill 'random'", () => {
  it('should write the very bytes it wrote before tiling existed (hashes of the output at a15caff, checked equal by sha256)', async () => {
    const hash = async (quant: 'F16' | 'Q4_0') => fnv1a(await ggufBytes(synthLlama({ ...opts, quant }).file))
    expect([await hash('F16'), await hash('Q4_0')]).toEqual(['cba441fe', '440d8d3'])
  })
})

describe("synthLlama fill 'tiled'", async () => {
  const random = synthLlama(opts)
  const tiled = synthLlama({ ...opts, fill: 'tiled' })
  const [rb, tb] = [await ggufBytes(random.file), await ggufBytes(tiled.file)]

  it('should keep the layout, size and metadata of the random file', () => {
    expect(tiled.fill).toBe('tiled')
    expect(tb.length).toBe(rb.length)
    expect(tiled.layout.tensors).toEqual(random.layout.tensors)
    expect(equal(tb.subarray(0, tiled.layout.dataOffset), rb.subarray(0, random.layout.dataOffset))).toBe(true)
    expect(readGgufHeader(tb).metadata).toEqual(readGgufHeader(rb).metadata)
  })

  it("should start every tensor with the random file's first rows (the tile) and repeat them in whole rows", () => {
    let tiledTensors = 0
    for (const [i, t] of tiled.file.tensors.entries()) {
      const { offset, bytes } = tiled.layout.tensors[i]!
      const at = tiled.layout.dataOffset + offset
      const rowBytes = ggmlRowBytes(t.type, t.dims[0]!)
      const chunk = Math.min(rowsFor(SYNTH_TILE_VALUES, t.dims[0]!) * rowBytes, bytes)
      const [r, d] = [rb.subarray(at, at + bytes), tb.subarray(at, at + bytes)]
      expect(equal(d.subarray(0, chunk), r.subarray(0, chunk)), t.name).toBe(true)
      if (chunk === bytes) continue
      tiledTensors++
      // Past the tile the tiled bytes are the tile again; the random ones are fresh.
      for (let k = chunk; k < bytes; k += chunk) {
        const piece = d.subarray(k, Math.min(k + chunk, bytes))
        expect(piece.length % rowBytes).toBe(0)
        expect(equal(piece, d.subarray(0, piece.length)), `${t.name} at ${k}`).toBe(true)
      }
      expect(equal(r.subarray(chunk), d.subarray(chunk))).toBe(false)
    }
    // Every 2-D weight is larger than the tile (64 rows of 1024); the norms are ones.
    expect(tiledTensors).toBe(9)
    expect(1024 * 1536).toBeGreaterThan(SYNTH_CHUNK_VALUES)
  })
})
