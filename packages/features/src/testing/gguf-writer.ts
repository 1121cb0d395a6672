/**
 * A minimal GGUF v3 writer for tests: metadata of a few value types and tensor infos with
 * zero-filled data of the right size. Not a general writer (see @kerneltune/gguf for that); it
 * exists so the tests of this package can make their own small files without depending on it.
 */

export type GgufTestValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'u64'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: string[] }

export interface GgufTestTensor {
  name: string
  /** ggml dims, innermost first. */
  dims: number[]
  /** ggml type id (0 F32, 1 F16, 8 Q8_0, 12 Q4_K, 14 Q6_K...). */
  type: number
  /** Bytes of data (the writer zero-fills). */
  bytes: number
}

const TYPE_ID = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10 } as const

export function writeTestGguf(metadata: Record<string, GgufTestValue>, tensors: GgufTestTensor[], alignment = 32): Uint8Array<ArrayBuffer> {
  const parts: number[] = []
  const enc = new TextEncoder()
  const u8 = (n: number) => parts.push(n & 0xff)
  const u32 = (n: number) => { for (let i = 0; i < 4; i++) u8(n >>> (8 * i)) }
  const u64 = (n: number) => { u32(n % 2 ** 32); u32(Math.floor(n / 2 ** 32)) }
  const str = (s: string) => { const b = enc.encode(s); u64(b.length); for (const x of b) u8(x) }
  const f32 = (x: number) => { const b = new Uint8Array(new Float32Array([x]).buffer); for (const x2 of b) u8(x2) }
  for (const c of 'GGUF') u8(c.charCodeAt(0))
  u32(3)
  u64(tensors.length)
  u64(Object.keys(metadata).length)
  for (const [key, v] of Object.entries(metadata)) {
    str(key)
    switch (v.type) {
      case 'u32': u32(TYPE_ID.u32); u32(v.value); break
      case 'i32': u32(TYPE_ID.i32); u32(v.value >>> 0); break
      case 'f32': u32(TYPE_ID.f32); f32(v.value); break
      case 'u64': u32(TYPE_ID.u64); u64(v.value); break
      case 'bool': u32(TYPE_ID.bool); u8(v.value ? 1 : 0); break
      case 'string': u32(TYPE_ID.string); str(v.value); break
      case 'strings': u32(TYPE_ID.array); u32(TYPE_ID.string); u64(v.value.length); v.value.forEach(str); break
    }
  }
  let offset = 0
  for (const t of tensors) {
    str(t.name)
    u32(t.dims.length)
    t.dims.forEach(u64)
    u32(t.type)
    u64(offset)
    offset += Math.ceil(t.bytes / alignment) * alignment
  }
  while (parts.length % alignment) u8(0)
  const out = new Uint8Array(parts.length + offset)
  out.set(parts)
  return out
}
