/**
 * The ggml tensor types this package writes, with their ids and block layouts as ggml defines
 * them (ggml/include/ggml.h `enum ggml_type`, ggml/src/ggml-common.h block structs).
 */
import { KerneltuneError } from '@kerneltune/core'

export const GGML_TYPE_NAMES = ['F32', 'F16', 'Q4_0', 'Q8_0'] as const
export type GgmlTypeName = (typeof GGML_TYPE_NAMES)[number]

interface TypeInfo {
  /** The id stored in a GGUF tensor info. */
  readonly id: number
  /** Elements per block. */
  readonly blockSize: number
  /** Bytes per block. */
  readonly blockBytes: number
}

export const GGML_TYPES: Readonly<Record<GgmlTypeName, TypeInfo>> = {
  F32: { id: 0, blockSize: 1, blockBytes: 4 },
  F16: { id: 1, blockSize: 1, blockBytes: 2 },
  // block_q4_0: ggml_half d; uint8_t qs[16]
  Q4_0: { id: 2, blockSize: 32, blockBytes: 18 },
  // block_q8_0: ggml_half d; int8_t qs[32]
  Q8_0: { id: 8, blockSize: 32, blockBytes: 34 },
}

/** `general.file_type` values (llama.h `enum llama_ftype`) for a model whose big weights use `type`. */
export const LLAMA_FILE_TYPES: Readonly<Record<GgmlTypeName, number>> = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 7 }

export function ggmlTypeName(id: number): GgmlTypeName | undefined {
  return GGML_TYPE_NAMES.find((n) => GGML_TYPES[n].id === id)
}

/** Bytes of one row of `rowLength` elements; the row length must be a whole number of blocks. */
export function ggmlRowBytes(type: GgmlTypeName, rowLength: number): number {
  const info = GGML_TYPES[type]
  if (rowLength % info.blockSize !== 0) {
    throw new KerneltuneError(
      'INVALID_INPUT',
      `a ${type} row must hold a multiple of ${info.blockSize} elements, got ${rowLength}; choose dimensions divisible by ${info.blockSize}`,
    )
  }
  return (rowLength / info.blockSize) * info.blockBytes
}

/** Bytes of a tensor with ggml dims (dims[0] is the contiguous row length). */
export function ggmlTensorBytes(type: GgmlTypeName, dims: readonly number[]): number {
  const rows = dims.slice(1).reduce((a, b) => a * b, 1)
  return ggmlRowBytes(type, dims[0] ?? 1) * rows
}
