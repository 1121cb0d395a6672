/**
 * Bytes per weight of every GGUF tensor type, from ggml's block layouts (ggml-common.h): a block
 * of `blockSize` weights is stored in `blockBytes` bytes (quantised values plus scales/mins).
 * Bits per weight = 8 · blockBytes / blockSize.
 */
import { KerneltuneError, QUANT_TYPES, normalizeQuantName, type QuantName } from '@kerneltune/core'

export interface BlockLayout {
  blockSize: number
  blockBytes: number
  /** What a block holds, byte by byte. */
  layout: string
}

/** ggml block layouts; FP8 is one byte per weight (engines keep a per-tensor scale, negligible). */
export const BLOCK_LAYOUTS: Readonly<Record<QuantName, BlockLayout>> = {
  F32: { blockSize: 1, blockBytes: 4, layout: 'float32' },
  F16: { blockSize: 1, blockBytes: 2, layout: 'float16' },
  BF16: { blockSize: 1, blockBytes: 2, layout: 'bfloat16' },
  FP8_E4M3: { blockSize: 1, blockBytes: 1, layout: 'fp8 e4m3' },
  FP8_E5M2: { blockSize: 1, blockBytes: 1, layout: 'fp8 e5m2' },
  Q4_0: { blockSize: 32, blockBytes: 18, layout: 'f16 d + 16 B of 4-bit quants' },
  Q4_1: { blockSize: 32, blockBytes: 20, layout: 'f16 d, f16 m + 16 B of 4-bit quants' },
  Q5_0: { blockSize: 32, blockBytes: 22, layout: 'f16 d + 4 B high bits + 16 B low nibbles' },
  Q5_1: { blockSize: 32, blockBytes: 24, layout: 'f16 d, f16 m + 4 B high bits + 16 B low nibbles' },
  Q8_0: { blockSize: 32, blockBytes: 34, layout: 'f16 d + 32 int8' },
  Q8_1: { blockSize: 32, blockBytes: 36, layout: 'f16 d, f16 s + 32 int8' },
  Q2_K: { blockSize: 256, blockBytes: 84, layout: '16 B scales/mins + 64 B 2-bit quants + f16 d, f16 dmin' },
  Q3_K: { blockSize: 256, blockBytes: 110, layout: '32 B high-bit mask + 64 B 2-bit quants + 12 B scales + f16 d' },
  Q4_K: { blockSize: 256, blockBytes: 144, layout: 'f16 d, f16 dmin + 12 B 6-bit scales/mins + 128 B 4-bit quants' },
  Q5_K: { blockSize: 256, blockBytes: 176, layout: 'f16 d, f16 dmin + 12 B scales + 32 B high bits + 128 B low nibbles' },
  Q6_K: { blockSize: 256, blockBytes: 210, layout: '128 B low 4 bits + 64 B high 2 bits + 16 int8 scales + f16 d' },
  Q8_K: { blockSize: 256, blockBytes: 292, layout: 'f32 d + 256 int8 + 16 int16 block sums' },
  IQ1_S: { blockSize: 256, blockBytes: 50, layout: 'f16 d + 32 B grid indices + 16 B high bits/scales' },
  IQ1_M: { blockSize: 256, blockBytes: 56, layout: '32 B grid indices + 16 B high bits + 8 B scales (d packed in scales)' },
  IQ2_XXS: { blockSize: 256, blockBytes: 66, layout: 'f16 d + 64 B grid indices/signs' },
  IQ2_XS: { blockSize: 256, blockBytes: 74, layout: 'f16 d + 64 B grid indices/signs + 8 B scales' },
  IQ2_S: { blockSize: 256, blockBytes: 82, layout: 'f16 d + 64 B quants + 8 B high bits + 8 B scales' },
  IQ3_XXS: { blockSize: 256, blockBytes: 98, layout: 'f16 d + 96 B grid indices/signs/scales' },
  IQ3_S: { blockSize: 256, blockBytes: 110, layout: 'f16 d + 64 B quants + 8 B high bits + 32 B signs + 4 B scales' },
  IQ4_NL: { blockSize: 32, blockBytes: 18, layout: 'f16 d + 16 B 4-bit non-linear indices' },
  IQ4_XS: { blockSize: 256, blockBytes: 136, layout: 'f16 d + u16 high scales + 4 B low scales + 128 B 4-bit indices' },
  TQ1_0: { blockSize: 256, blockBytes: 54, layout: '48 B base-3 packed trits + 4 B + f16 d' },
  TQ2_0: { blockSize: 256, blockBytes: 66, layout: '64 B 2-bit trits + f16 d' },
  MXFP4: { blockSize: 32, blockBytes: 17, layout: 'e8m0 shared exponent + 16 B fp4 e2m1 values' },
}

function resolve(quant: string): QuantName {
  const q = normalizeQuantName(quant)
  if (!q) {
    throw new KerneltuneError('INVALID_INPUT', `unknown quantization "${quant}"; accepted: ${QUANT_TYPES.join(', ')} (and spellings such as Q4K, Q4_K_M)`)
  }
  return q
}

/** Bytes per weight (e.g. Q4_K → 144/256 = 0.5625). Accepts any spelling normalizeQuantName knows. */
export function bytesPerWeight(quant: string): number {
  const l = BLOCK_LAYOUTS[resolve(quant)]
  return l.blockBytes / l.blockSize
}

/** Bits per weight (e.g. Q4_K → 4.5). */
export function bitsPerWeight(quant: string): number {
  return bytesPerWeight(quant) * 8
}

/** The block layout of a format. */
export function blockLayout(quant: string): BlockLayout & { quant: QuantName } {
  const q = resolve(quant)
  return { quant: q, ...BLOCK_LAYOUTS[q] }
}

/** Bytes of a tensor with `elements` weights stored as `quant` (whole blocks). */
export function tensorBytes(quant: string, elements: number): number {
  const l = BLOCK_LAYOUTS[resolve(quant)]
  return Math.ceil(elements / l.blockSize) * l.blockBytes
}

/**
 * Bytes of weights from a per-type element summary (as `fromGguf` reports it). Types without a
 * layout here (integer tensors, F64) are counted at their natural width.
 */
export function weightBytesOf(summary: readonly { type: string; elements: number }[]): number {
  const natural: Record<string, number> = { I8: 1, I16: 2, I32: 4, I64: 8, F64: 8 }
  let total = 0
  for (const t of summary) {
    const q = normalizeQuantName(t.type)
    total += q ? tensorBytes(q, t.elements) : t.elements * (natural[t.type] ?? 2)
  }
  return total
}
