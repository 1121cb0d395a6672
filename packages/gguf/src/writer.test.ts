import { describe, expect, it } from 'vitest'
import { encodeF32 } from './f16.ts'
import { gv } from './metadata.ts'
import { readGgufHeader } from './reader.ts'
import { ggufBytes, ggufLayout, writeGguf, type GgufFile } from './writer.ts'

const bytesOf = (n: number, fill: number) => new Uint8Array(n).fill(fill)

const file: GgufFile = {
  metadata: {
    'general.architecture': gv.str('test'),
    'general.alignment': gv.u32(64),
    'a.u8': gv.u8(200),
    'a.i16': gv.i16(-300),
    'a.i32': gv.i32(-70000),
    'a.u64': gv.u64(2n ** 40n),
    'a.f32': gv.f32(0.5),
    'a.f64': gv.f64(1 / 3),
    'a.bool': gv.bool(true),
    'a.strs': gv.arr('string', ['x', 'yé', '']),
    'a.ints': gv.arr('i32', [1, -2, 3]),
  },
  tensors: [
    { name: 'odd', dims: [3], type: 'F32', data: () => [encodeF32([1, 2, 3])] },
    { name: 'q', dims: [32, 2], type: 'Q8_0', data: () => [bytesOf(34, 7), bytesOf(34, 9)] },
    { name: 'h', dims: [4, 2, 2], type: 'F16', data: async function* () { yield bytesOf(32, 5) } },
  ],
}

describe('writeGguf', () => {
  it('should write a header the reader parses back, with every value type', async () => {
    const bytes = await ggufBytes(file)
    const h = readGgufHeader(bytes)
    expect(h.version).toBe(3)
    expect(h.metadata).toEqual({
      'general.architecture': 'test',
      'general.alignment': 64,
      'a.u8': 200,
      'a.i16': -300,
      'a.i32': -70000,
      'a.u64': 2 ** 40,
      'a.f32': 0.5,
      'a.f64': 1 / 3,
      'a.bool': true,
      'a.strs': ['x', 'yé', ''],
      'a.ints': [1, -2, 3],
    })
    expect(h.tensors.map((t) => [t.name, t.dims, t.type])).toEqual([
      ['odd', [3], 'F32'],
      ['q', [32, 2], 'Q8_0'],
      ['h', [4, 2, 2], 'F16'],
    ])
  })

  it('should align the data section and every tensor offset, and put each tensor where its info says', async () => {
    const bytes = await ggufBytes(file)
    const h = readGgufHeader(bytes)
    expect(h.alignment).toBe(64)
    expect(h.dataOffset % 64).toBe(0)
    expect(h.tensors.map((t) => t.offset)).toEqual([0, 64, 192])
    const at = (name: string) => h.dataOffset + h.tensors.find((t) => t.name === name)!.offset
    expect(new Float32Array(bytes.slice(at('odd'), at('odd') + 12).buffer)).toEqual(new Float32Array([1, 2, 3]))
    expect(bytes[at('q')]).toBe(7)
    expect(bytes[at('q') + 34]).toBe(9)
    expect(bytes[at('h') + 31]).toBe(5)
    // Padding after the 12-byte tensor is zero.
    expect(bytes.slice(at('odd') + 12, at('q')).every((b) => b === 0)).toBe(true)
    expect(bytes.length).toBe(ggufLayout(file).totalBytes)
    expect(bytes.length % 64).toBe(0)
  })

  it('should stream through a sink in several chunks', async () => {
    const chunks: Uint8Array[] = []
    const layout = await writeGguf(file, (c) => void chunks.push(c))
    expect(chunks.length).toBeGreaterThan(3)
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(layout.totalBytes)
  })

  it('should refuse a producer that yields the wrong number of bytes', async () => {
    const bad: GgufFile = { metadata: {}, tensors: [{ name: 't', dims: [32], type: 'Q8_0', data: () => [bytesOf(33, 0)] }] }
    await expect(ggufBytes(bad)).rejects.toThrow(/tensor t produced only 33 bytes; its type and dims need exactly 34/)
  })

  it('should refuse duplicate names, bad dims, rows that are not whole blocks and bad alignment', () => {
    const t = { name: 't', dims: [32], type: 'F32' as const, data: () => [] }
    expect(() => ggufLayout({ metadata: {}, tensors: [t, t] })).toThrow(/appears twice/)
    expect(() => ggufLayout({ metadata: {}, tensors: [{ ...t, dims: [0] }] })).toThrow(/positive whole numbers/)
    expect(() => ggufLayout({ metadata: {}, tensors: [{ ...t, type: 'Q4_0', dims: [48] }] })).toThrow(/multiple of 32/)
    expect(() => ggufLayout({ metadata: { 'general.alignment': gv.u32(24) }, tensors: [] })).toThrow(/power of two/)
  })
})

describe('readGgufHeader', () => {
  it('should reject a file that is not GGUF and say when the header is cut short', async () => {
    expect(() => readGgufHeader(new TextEncoder().encode('GGML0000000000000000000000'))).toThrow(/not a GGUF file/)
    const bytes = await ggufBytes(file)
    expect(() => readGgufHeader(bytes.slice(0, 40))).toThrow(/longer than the 40 bytes given/)
  })
})
