/**
 * Where each tensor of a GGUF lies, and whether the file holds it. A file cut short (an
 * interrupted download or copy) still has a whole header, so it reads fine until llama.cpp
 * tries to load the tensor data and reports only "Failed to load model"; checking the extents
 * against the file size says which tensor is missing, before anything is loaded.
 */
import { KerneltuneError } from '@kerneltune/core'
import type { GgufHeader, GgufTensorInfo } from './reader.ts'

/**
 * Elements per block and bytes per block of every ggml type a GGUF may hold, by type id: the
 * `blck_size` and `type_size` of `type_traits` in ggml/src/ggml.c (llama.cpp as shipped by
 * node-llama-cpp; printed from its headers by compiling sizeof of each block struct).
 */
export const GGML_TYPE_LAYOUTS: Readonly<Record<number, { readonly name: string, readonly blockSize: number, readonly blockBytes: number }>> = {
  0: { name: 'F32', blockSize: 1, blockBytes: 4 },
  1: { name: 'F16', blockSize: 1, blockBytes: 2 },
  2: { name: 'Q4_0', blockSize: 32, blockBytes: 18 },
  3: { name: 'Q4_1', blockSize: 32, blockBytes: 20 },
  6: { name: 'Q5_0', blockSize: 32, blockBytes: 22 },
  7: { name: 'Q5_1', blockSize: 32, blockBytes: 24 },
  8: { name: 'Q8_0', blockSize: 32, blockBytes: 34 },
  9: { name: 'Q8_1', blockSize: 32, blockBytes: 36 },
  10: { name: 'Q2_K', blockSize: 256, blockBytes: 84 },
  11: { name: 'Q3_K', blockSize: 256, blockBytes: 110 },
  12: { name: 'Q4_K', blockSize: 256, blockBytes: 144 },
  13: { name: 'Q5_K', blockSize: 256, blockBytes: 176 },
  14: { name: 'Q6_K', blockSize: 256, blockBytes: 210 },
  15: { name: 'Q8_K', blockSize: 256, blockBytes: 292 },
  16: { name: 'IQ2_XXS', blockSize: 256, blockBytes: 66 },
  17: { name: 'IQ2_XS', blockSize: 256, blockBytes: 74 },
  18: { name: 'IQ3_XXS', blockSize: 256, blockBytes: 98 },
  19: { name: 'IQ1_S', blockSize: 256, blockBytes: 50 },
  20: { name: 'IQ4_NL', blockSize: 32, blockBytes: 18 },
  21: { name: 'IQ3_S', blockSize: 256, blockBytes: 110 },
  22: { name: 'IQ2_S', blockSize: 256, blockBytes: 82 },
  23: { name: 'IQ4_XS', blockSize: 256, blockBytes: 136 },
  24: { name: 'I8', blockSize: 1, blockBytes: 1 },
  25: { name: 'I16', blockSize: 1, blockBytes: 2 },
  26: { name: 'I32', blockSize: 1, blockBytes: 4 },
  27: { name: 'I64', blockSize: 1, blockBytes: 8 },
  28: { name: 'F64', blockSize: 1, blockBytes: 8 },
  29: { name: 'IQ1_M', blockSize: 256, blockBytes: 56 },
  30: { name: 'BF16', blockSize: 1, blockBytes: 2 },
  34: { name: 'TQ1_0', blockSize: 256, blockBytes: 54 },
  35: { name: 'TQ2_0', blockSize: 256, blockBytes: 66 },
  39: { name: 'MXFP4', blockSize: 32, blockBytes: 17 },
  40: { name: 'NVFP4', blockSize: 64, blockBytes: 36 },
  41: { name: 'Q1_0', blockSize: 128, blockBytes: 18 },
  42: { name: 'Q2_0', blockSize: 64, blockBytes: 18 },
}

export interface TensorExtent {
  readonly name: string
  /** The ggml type name, or `type <id>` for an id this table does not know. */
  readonly type: string
  /** Absolute byte offsets in the file: [start, end). `end` is undefined when the type is unknown. */
  readonly start: number
  readonly end: number | undefined
}

/** The absolute byte range of a tensor's data (ggml rounds each row up to whole blocks). */
export function tensorExtent(header: GgufHeader, t: GgufTensorInfo): TensorExtent {
  const layout = GGML_TYPE_LAYOUTS[t.typeId]
  const start = header.dataOffset + t.offset
  if (!layout) return { name: t.name, type: `type ${t.typeId}`, start, end: undefined }
  const rows = t.dims.slice(1).reduce((a, b) => a * b, 1)
  const rowBytes = Math.ceil((t.dims[0] ?? 1) / layout.blockSize) * layout.blockBytes
  return { name: t.name, type: layout.name, start, end: start + rows * rowBytes }
}

/** The tensors whose data lies (wholly or partly) beyond `fileBytes`, in header order. */
export function tensorsOutsideFile(header: GgufHeader, fileBytes: number): TensorExtent[] {
  return header.tensors.map((t) => tensorExtent(header, t)).filter((e) => (e.end ?? e.start) > fileBytes)
}

/**
 * Throws INVALID_FORMAT naming the first tensor that the file does not hold, with how many bytes
 * are missing; the header alone cannot tell a whole file from a truncated one.
 */
export function checkGgufTensorsInFile(header: GgufHeader, fileBytes: number, what = 'the GGUF'): void {
  const outside = tensorsOutsideFile(header, fileBytes)
  const first = outside[0]
  if (!first) return
  const expected = Math.max(...outside.map((e) => e.end ?? e.start))
  const dims = header.tensors.find((t) => t.name === first.name)?.dims ?? []
  throw new KerneltuneError(
    'INVALID_FORMAT',
    `${what} is truncated: tensor '${first.name}' (${first.type}, ${dims.join('x')}) lies at bytes ${first.start}..${first.end ?? '?'} ` +
      `but the file has only ${fileBytes} bytes (${outside.length} of ${header.tensors.length} tensors are cut off, at least ${expected - fileBytes} bytes missing); ` +
      'the download or copy stopped early: fetch or write the file again',
    { details: { tensor: first.name, start: first.start, end: first.end, fileBytes, tensorsOutside: outside.length, expectedBytes: expected } },
  )
}
