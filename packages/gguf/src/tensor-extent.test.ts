import { describe, expect, it } from 'vitest'
import { encodeF32 } from './f16.ts'
import { gv } from './metadata.ts'
import { readGgufHeader } from './reader.ts'
import { checkGgufTensorsInFile, GGML_TYPE_LAYOUTS, tensorExtent, tensorsOutsideFile } from './tensor-extent.ts'
import { GGML_TYPES } from './ggml-types.ts'
import { ggufBytes, ggufLayout, type GgufFile } from './writer.ts'

const file: GgufFile = {
  metadata: { 'general.architecture': gv.str('test'), 'general.alignment': gv.u32(32) },
  tensors: [
    { name: 'odd', dims: [3], type: 'F32', data: () => [encodeF32([1, 2, 3])] },
    { name: 'q', dims: [32, 2], type: 'Q8_0', data: () => [new Uint8Array(68).fill(7)] },
    { name: 'h', dims: [4, 2, 2], type: 'F16', data: () => [new Uint8Array(32).fill(5)] },
  ],
}

describe('tensor extents', () => {
  it('should agree with the writer on where every tensor lies and how long it is', async () => {
    const bytes = await ggufBytes(file)
    const h = readGgufHeader(bytes)
    const layout = ggufLayout(file)
    expect(h.tensors.map((t) => tensorExtent(h, t))).toEqual(layout.tensors.map((t, i) => ({
      name: t.name, type: file.tensors[i]!.type, start: layout.dataOffset + t.offset, end: layout.dataOffset + t.offset + t.bytes,
    })))
  })

  it('should know the block layout of every type the writer knows, as ggml-types does', () => {
    for (const info of Object.values(GGML_TYPES)) {
      expect(GGML_TYPE_LAYOUTS[info.id]).toMatchObject({ blockSize: info.blockSize, blockBytes: info.blockBytes })
    }
  })

  it('should pass a whole file and name the first tensor a truncated one cuts off', async () => {
    const bytes = await ggufBytes(file)
    const h = readGgufHeader(bytes)
    const ends = h.tensors.map((t) => tensorExtent(h, t).end!)
    expect(() => checkGgufTensorsInFile(h, bytes.length)).not.toThrow()
    expect(tensorsOutsideFile(h, ends[2]! - 1).map((e) => e.name)).toEqual(['h'])
    expect(tensorsOutsideFile(h, ends[1]! - 1).map((e) => e.name)).toEqual(['q', 'h'])
    // The header is whole at this size, so only the extent check can tell.
    const cut = bytes.subarray(0, ends[0]! + 10)
    const header = readGgufHeader(cut)
    expect(() => checkGgufTensorsInFile(header, cut.length, 'm.gguf')).toThrow(
      new RegExp(`m.gguf is truncated: tensor 'q' \\(Q8_0, 32x2\\) lies at bytes ${tensorExtent(h, h.tensors[1]!).start}\\.\\.${ends[1]} but the file has only ${cut.length} bytes \\(2 of 3 tensors`),
    )
  })

  it('should still catch a tensor of an unknown type that starts beyond the end', () => {
    const h = { version: 3, metadata: {}, alignment: 32, dataOffset: 64, tensors: [{ name: 'x', dims: [256], typeId: 99, type: undefined, offset: 100 }] }
    expect(tensorsOutsideFile(h, 100)).toEqual([{ name: 'x', type: 'type 99', start: 164, end: undefined }])
    expect(tensorsOutsideFile(h, 200)).toEqual([])
  })
})
