/**
 * Reads a GGUF header (metadata and tensor infos) from the first bytes of a file. It is used to
 * check what the writer produced and to describe a model before measuring it; it does not read
 * tensor data.
 */
import { KerneltuneError } from '@kerneltune/core'
import { ggmlTypeName, type GgmlTypeName } from './ggml-types.ts'
import { GGUF_VALUE_TYPES } from './metadata.ts'
import { GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC } from './writer.ts'

export type GgufReadValue = number | bigint | string | boolean | GgufReadValue[]

export interface GgufTensorInfo {
  readonly name: string
  readonly dims: readonly number[]
  readonly typeId: number
  /** Undefined for types this package does not know (K-quants and others). */
  readonly type: GgmlTypeName | undefined
  readonly offset: number
}

export interface GgufHeader {
  readonly version: number
  readonly metadata: Record<string, GgufReadValue>
  readonly tensors: readonly GgufTensorInfo[]
  readonly alignment: number
  readonly dataOffset: number
}

class Truncated extends Error {}

const TYPE_BY_ID = Object.fromEntries(Object.entries(GGUF_VALUE_TYPES).map(([k, v]) => [v, k])) as Record<number, string>

/** Parses the header; throws INVALID_FORMAT with `details.needBytes` when `bytes` is too short. */
export function readGgufHeader(bytes: Uint8Array): GgufHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const text = new TextDecoder()
  let at = 0
  const need = (n: number) => {
    if (at + n > bytes.length) throw new Truncated()
  }
  const u32 = () => (need(4), (at += 4), view.getUint32(at - 4, true))
  const u64 = () => {
    need(8)
    at += 8
    const v = view.getBigUint64(at - 8, true)
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
  }
  const str = () => {
    const n = Number(u64())
    need(n)
    at += n
    return text.decode(bytes.subarray(at - n, at))
  }
  const scalar = (type: string): GgufReadValue => {
    switch (type) {
      case 'u8': return (need(1), (at += 1), view.getUint8(at - 1))
      case 'i8': return (need(1), (at += 1), view.getInt8(at - 1))
      case 'u16': return (need(2), (at += 2), view.getUint16(at - 2, true))
      case 'i16': return (need(2), (at += 2), view.getInt16(at - 2, true))
      case 'u32': return u32()
      case 'i32': return (need(4), (at += 4), view.getInt32(at - 4, true))
      case 'f32': return (need(4), (at += 4), view.getFloat32(at - 4, true))
      case 'f64': return (need(8), (at += 8), view.getFloat64(at - 8, true))
      case 'u64': return u64()
      case 'i64': return (need(8), (at += 8), view.getBigInt64(at - 8, true))
      case 'bool': return (need(1), (at += 1), view.getUint8(at - 1) !== 0)
      case 'string': return str()
      default: throw new KerneltuneError('INVALID_FORMAT', `unknown GGUF value type ${type} at byte ${at}`)
    }
  }
  const value = (): GgufReadValue => {
    const type = TYPE_BY_ID[u32()] ?? 'unknown'
    if (type !== 'array') return scalar(type)
    const itemType = TYPE_BY_ID[u32()] ?? 'unknown'
    const n = Number(u64())
    const items: GgufReadValue[] = []
    for (let i = 0; i < n; i++) items.push(scalar(itemType))
    return items
  }
  try {
    if (u32() !== GGUF_MAGIC) throw new KerneltuneError('INVALID_FORMAT', 'not a GGUF file: the first four bytes are not "GGUF"')
    const version = u32()
    if (version < 2 || version > 3) throw new KerneltuneError('INVALID_FORMAT', `GGUF version ${version} is not supported; versions 2 and 3 are`)
    const tensorCount = Number(u64())
    const kvCount = Number(u64())
    const metadata: Record<string, GgufReadValue> = {}
    for (let i = 0; i < kvCount; i++) {
      const key = str()
      metadata[key] = value()
    }
    const tensors: GgufTensorInfo[] = []
    for (let i = 0; i < tensorCount; i++) {
      const name = str()
      const nDims = u32()
      const dims: number[] = []
      for (let d = 0; d < nDims; d++) dims.push(Number(u64()))
      const typeId = u32()
      tensors.push({ name, dims, typeId, type: ggmlTypeName(typeId), offset: Number(u64()) })
    }
    const alignment = typeof metadata['general.alignment'] === 'number' ? metadata['general.alignment'] : GGUF_DEFAULT_ALIGNMENT
    return { version, metadata, tensors, alignment, dataOffset: Math.ceil(at / alignment) * alignment }
  } catch (e) {
    if (e instanceof Truncated) {
      throw new KerneltuneError('INVALID_FORMAT', `the GGUF header is longer than the ${bytes.length} bytes given; read more of the file`, {
        details: { needBytes: bytes.length * 2 },
      })
    }
    throw e
  }
}

/** What a header says about its model, as a measurement reports it; null where the metadata has no such key. */
export interface GgufModelInfo {
  readonly name: GgufReadValue | null
  readonly architecture: string
  readonly fileType: GgufReadValue | null
  readonly tensors: number
  readonly hidden: GgufReadValue | null
  readonly layers: GgufReadValue | null
  readonly vocab: number | null
}

export function ggufModelInfo(header: GgufHeader): GgufModelInfo {
  const meta = header.metadata
  const arch = String(meta['general.architecture'] ?? 'unknown')
  const tokens = meta['tokenizer.ggml.tokens']
  return {
    name: meta['general.name'] ?? null, architecture: arch, fileType: meta['general.file_type'] ?? null, tensors: header.tensors.length,
    hidden: meta[`${arch}.embedding_length`] ?? null, layers: meta[`${arch}.block_count`] ?? null, vocab: Array.isArray(tokens) ? tokens.length : null,
  }
}
