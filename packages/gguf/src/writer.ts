/**
 * A streaming GGUF v3 writer. The header (metadata and tensor infos) is small and built in
 * memory; tensor data comes from each tensor's `data()` producer and is yielded chunk by chunk,
 * so a multi-GB model never has to be held in memory. Layout (ggml/src/gguf.cpp):
 * magic "GGUF", version, tensor count, KV count, KVs, tensor infos, padding to the alignment,
 * then each tensor's bytes at an offset that is a multiple of the alignment.
 */
import { KerneltuneError } from '@kerneltune/core'
import { ByteWriter } from './bytes.ts'
import { GGML_TYPES, ggmlTensorBytes, type GgmlTypeName } from './ggml-types.ts'
import { writeValue, type GgufValue } from './metadata.ts'

export const GGUF_MAGIC = 0x46554747 // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3
export const GGUF_DEFAULT_ALIGNMENT = 32

export type TensorChunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>

export interface GgufTensor {
  readonly name: string
  /** ggml order: dims[0] is the contiguous row length (a `[hidden, vocab]` embedding has vocab rows). */
  readonly dims: readonly number[]
  readonly type: GgmlTypeName
  /** Produces the tensor's bytes in order; they must add up to `ggmlTensorBytes(type, dims)`. */
  readonly data: () => TensorChunks
}

export interface GgufFile {
  /** Key → typed value, in the order they should be written. */
  readonly metadata: Readonly<Record<string, GgufValue>>
  readonly tensors: readonly GgufTensor[]
}

export interface GgufLayout {
  readonly header: Uint8Array
  readonly alignment: number
  /** Byte offset of the tensor data section in the file. */
  readonly dataOffset: number
  /** Each tensor's offset relative to the data section, and its size in bytes. */
  readonly tensors: readonly { name: string; offset: number; bytes: number }[]
  readonly totalBytes: number
}

const alignUp = (n: number, a: number) => Math.ceil(n / a) * a

function alignmentOf(file: GgufFile): number {
  const v = file.metadata['general.alignment']
  if (v === undefined) return GGUF_DEFAULT_ALIGNMENT
  const a = Number(v.value)
  if (v.type !== 'u32' || !Number.isInteger(a) || a <= 0 || (a & (a - 1)) !== 0) {
    throw new KerneltuneError('INVALID_INPUT', `general.alignment must be a u32 power of two, got ${String(v.value)} (${v.type})`)
  }
  return a
}

/** Builds the header and computes where every tensor goes. */
export function ggufLayout(file: GgufFile): GgufLayout {
  const alignment = alignmentOf(file)
  const w = new ByteWriter()
  w.u32(GGUF_MAGIC)
  w.u32(GGUF_VERSION)
  w.u64(file.tensors.length)
  const keys = Object.keys(file.metadata)
  w.u64(keys.length)
  for (const key of keys) {
    w.str(key)
    writeValue(w, file.metadata[key]!)
  }
  const seen = new Set<string>()
  const placed: { name: string; offset: number; bytes: number }[] = []
  let offset = 0
  for (const t of file.tensors) {
    if (seen.has(t.name)) throw new KerneltuneError('INVALID_INPUT', `tensor ${t.name} appears twice; tensor names must be unique`)
    seen.add(t.name)
    if (t.dims.length < 1 || t.dims.length > 4 || t.dims.some((d) => !Number.isInteger(d) || d <= 0)) {
      throw new KerneltuneError('INVALID_INPUT', `tensor ${t.name} has dims [${t.dims.join(', ')}]; give 1 to 4 positive whole numbers`)
    }
    const bytes = ggmlTensorBytes(t.type, t.dims)
    w.str(t.name)
    w.u32(t.dims.length)
    for (const d of t.dims) w.u64(d)
    w.u32(GGML_TYPES[t.type].id)
    w.u64(offset)
    placed.push({ name: t.name, offset, bytes })
    offset = alignUp(offset + bytes, alignment)
  }
  w.zeros(alignUp(w.length, alignment) - w.length)
  const header = w.toBytes()
  return { header, alignment, dataOffset: header.length, tensors: placed, totalBytes: header.length + offset }
}

/**
 * The whole file as a stream of chunks: the header, then each tensor's data followed by the
 * padding that aligns the next one. Throws INVALID_INPUT if a producer yields the wrong size.
 */
export async function* ggufChunks(file: GgufFile, layout: GgufLayout = ggufLayout(file)): AsyncGenerator<Uint8Array> {
  yield layout.header
  for (let i = 0; i < file.tensors.length; i++) {
    const tensor = file.tensors[i]!
    const { bytes } = layout.tensors[i]!
    let written = 0
    for await (const chunk of tensor.data()) {
      written += chunk.length
      if (written > bytes) break
      yield chunk
    }
    if (written !== bytes) {
      throw new KerneltuneError('INVALID_INPUT', `tensor ${tensor.name} produced ${written > bytes ? 'more than' : 'only'} ${written} bytes; its type and dims need exactly ${bytes}`)
    }
    const pad = alignUp(bytes, layout.alignment) - bytes
    if (pad > 0) yield new Uint8Array(pad)
  }
}

/** Writes the file through `sink` (awaited per chunk, so a slow file stream applies back-pressure). */
export async function writeGguf(file: GgufFile, sink: (chunk: Uint8Array) => void | Promise<void>): Promise<GgufLayout> {
  const layout = ggufLayout(file)
  for await (const chunk of ggufChunks(file, layout)) await sink(chunk)
  return layout
}

/** The whole file in memory; for small files and tests. */
export async function ggufBytes(file: GgufFile): Promise<Uint8Array> {
  const layout = ggufLayout(file)
  const out = new Uint8Array(layout.totalBytes)
  let at = 0
  for await (const chunk of ggufChunks(file, layout)) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}
