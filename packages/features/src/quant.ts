/**
 * trueno's 8-slot QuantType (§A.2) and how every GGUF weight format maps into those slots.
 * The one-hot of the feature vector has exactly these 8 positions, so the 29 GGUF formats of
 * core's QUANT_TYPES must be folded into them; the mapping is explicit and documented here.
 */
import { KERNEL_TYPES, normalizeQuantName, type KernelTypeName, type QuantName } from '@kerneltune/core'

/** trueno's QuantType, in one-hot index order. Spelled as upstream spells them. */
export const TRUENO_QUANT_TYPES = ['Q4_0', 'Q4_1', 'Q4K', 'Q5K', 'Q6K', 'Q8_0', 'F16', 'F32'] as const
export type TruenoQuant = (typeof TRUENO_QUANT_TYPES)[number]

/** Upstream's bytes-per-parameter table (§A.2), in index order. Note Q8_0 is 1.0, not 34/32. */
export const TRUENO_QUANT_BYTES: readonly number[] = [0.5625, 0.5625, 0.5625, 0.6875, 0.8125, 1, 2, 4]

/** Upstream default (§A.2). */
export const DEFAULT_TRUENO_QUANT: TruenoQuant = 'Q4K'

/** Bytes per parameter of a trueno slot. */
export function truenoQuantBytes(q: TruenoQuant): number {
  return TRUENO_QUANT_BYTES[TRUENO_QUANT_TYPES.indexOf(q)]!
}

/**
 * GGUF format → trueno slot. Exact matches keep their slot; every other format goes to the slot
 * with the same storage width class, preferring the nearest bits-per-weight:
 * - BF16 → F16 (2 bytes); FP8 and 8-bit block formats (Q8_1, Q8_K) → Q8_0.
 * - 5-bit legacy blocks (Q5_0, Q5_1) → Q5K.
 * - 4-bit and narrower formats (Q2_K, Q3_K, IQ*, TQ*) → Q4K: trueno has no narrower slot, and Q4K is
 *   upstream's default. MXFP4 (32-element blocks with one shared scale) → Q4_0, its layout twin.
 */
export const GGUF_TO_TRUENO: Readonly<Record<QuantName, TruenoQuant>> = {
  F32: 'F32', F16: 'F16', BF16: 'F16', FP8_E4M3: 'Q8_0', FP8_E5M2: 'Q8_0',
  Q4_0: 'Q4_0', Q4_1: 'Q4_1', Q5_0: 'Q5K', Q5_1: 'Q5K', Q8_0: 'Q8_0', Q8_1: 'Q8_0',
  Q2_K: 'Q4K', Q3_K: 'Q4K', Q4_K: 'Q4K', Q5_K: 'Q5K', Q6_K: 'Q6K', Q8_K: 'Q8_0',
  IQ1_S: 'Q4K', IQ1_M: 'Q4K', IQ2_XXS: 'Q4K', IQ2_XS: 'Q4K', IQ2_S: 'Q4K', IQ3_XXS: 'Q4K', IQ3_S: 'Q4K',
  IQ4_NL: 'Q4K', IQ4_XS: 'Q4K', TQ1_0: 'Q4K', TQ2_0: 'Q4K', MXFP4: 'Q4_0',
}

/** The GGUF name of each trueno slot (the exact counterpart). */
export const TRUENO_TO_GGUF: Readonly<Record<TruenoQuant, QuantName>> = {
  Q4_0: 'Q4_0', Q4_1: 'Q4_1', Q4K: 'Q4_K', Q5K: 'Q5_K', Q6K: 'Q6_K', Q8_0: 'Q8_0', F16: 'F16', F32: 'F32',
}

/** The trueno slot for any quantization spelling (GGUF or upstream); undefined if unknown. */
export function toTruenoQuant(name: string): TruenoQuant | undefined {
  if ((TRUENO_QUANT_TYPES as readonly string[]).includes(name)) return name as TruenoQuant
  const q = normalizeQuantName(name)
  return q === undefined ? undefined : GGUF_TO_TRUENO[q]
}

/** True when the GGUF format has its own trueno slot (no folding). */
export function isExactTruenoQuant(q: QuantName): boolean {
  return TRUENO_TO_GGUF[GGUF_TO_TRUENO[q]] === q
}

export { KERNEL_TYPES, type KernelTypeName }
/** Upstream default kernel (§A.2). */
export const DEFAULT_KERNEL: KernelTypeName = 'TiledQ4K'

/** Upstream `KernelType::from_index`: anything ≥ 15 (or negative/fractional) is Unknown. */
export function kernelFromIndex(i: number): KernelTypeName {
  return Number.isInteger(i) && i >= 0 && i < KERNEL_TYPES.length ? KERNEL_TYPES[i]! : 'Unknown'
}

/** Upstream `QuantType::from_index`-style lookup; undefined outside 0..7. */
export function truenoQuantFromIndex(i: number): TruenoQuant | undefined {
  return Number.isInteger(i) && i >= 0 && i < TRUENO_QUANT_TYPES.length ? TRUENO_QUANT_TYPES[i] : undefined
}
