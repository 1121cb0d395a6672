import { z } from 'zod'

/**
 * Weight formats, spelled as GGUF spells them (ggml_type names), plus FP8 for engines that use
 * it. Upstream trueno spellings (`Q4K`, `Q8_0`...) and GGUF file-type suffixes (`Q4_K_M`) are
 * accepted by `normalizeQuantName`.
 */
export const QUANT_TYPES = [
  'F32', 'F16', 'BF16', 'FP8_E4M3', 'FP8_E5M2',
  'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'Q8_1',
  'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K', 'Q8_K',
  'IQ1_S', 'IQ1_M', 'IQ2_XXS', 'IQ2_XS', 'IQ2_S', 'IQ3_XXS', 'IQ3_S', 'IQ4_NL', 'IQ4_XS',
  'TQ1_0', 'TQ2_0', 'MXFP4',
] as const

export type QuantName = (typeof QUANT_TYPES)[number]
export const QuantNameSchema: z.ZodEnum<{ [Q in QuantName]: Q }> = z.enum(QUANT_TYPES)

const ALIASES: Record<string, QuantName> = {
  FP32: 'F32', FLOAT32: 'F32', FP16: 'F16', FLOAT16: 'F16', HALF: 'F16', BFLOAT16: 'BF16',
  FP8: 'FP8_E4M3', E4M3: 'FP8_E4M3', E5M2: 'FP8_E5M2',
}

/**
 * Normalises a quantization name: case-insensitive, `Q4K` → `Q4_K`, `Q4_K_M`/`Q4_K_S` → `Q4_K`,
 * `fp16` → `F16`. Returns undefined for a name it does not know.
 */
export function normalizeQuantName(input: string): QuantName | undefined {
  const raw = input.trim().toUpperCase().replace(/-/g, '_')
  if ((QUANT_TYPES as readonly string[]).includes(raw)) return raw as QuantName
  if (raw in ALIASES) return ALIASES[raw]
  // Upstream trueno writes K-quants without the underscore: Q4K, Q5K, Q6K.
  const upstream = /^Q(\d)K$/.exec(raw)
  if (upstream) return normalizeQuantName(`Q${upstream[1]}_K`)
  // GGUF file types name a mix by its main tensor type plus a size suffix: Q4_K_M, Q3_K_L.
  const mix = /^(Q\d_K)_(S|M|L|XL)$/.exec(raw)
  if (mix) return normalizeQuantName(mix[1]!)
  return undefined
}

/** A quantization name that accepts every spelling `normalizeQuantName` knows. */
export const QuantInputSchema: z.ZodPipe<z.ZodString, z.ZodTransform<QuantName, string>> = z
  .string()
  .transform((s, ctx) => {
    const q = normalizeQuantName(s)
    if (q === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown quantization "${s}"; accepted: ${QUANT_TYPES.join(', ')} (and spellings such as Q4K, Q4_K_M)`,
      })
      return z.NEVER
    }
    return q
  })
