/**
 * Config generation per bit width (reference §B.4) and the guide's variant and fp32-accumulation
 * rules (§B.7), which the CLI's quick mode uses to keep the search small.
 */
import {
  BATCH_STRATEGIES,
  DEFAULT_SIMDGROUP_MAPPING,
  DEFAULT_TILE_SIZE_MAPPING,
  DEFAULT_TILE_SIZES,
  KERNEL_VARIANTS,
  SIMDGROUP_CONFIGS,
  type BatchStrategy,
  type BitWidth,
  type KernelVariant,
} from './constants.ts'
import { createKernelConfig, type KernelConfig } from './kernel-config.ts'

export interface GenerateOptions {
  variants?: readonly KernelVariant[]
  strategies?: readonly BatchStrategy[]
  /** Sets `use_fp32_acc` on every config (upstream leaves it false). */
  useFp32Acc?: boolean
}

/**
 * `generate_configs`: the full product tiles × [4, 8, 16] × variants × strategies per bit width
 * (108 configs for bits 2, 3 and 4; 72 for bit 8 with the defaults).
 */
export function generateConfigs(bitWidths: readonly BitWidth[], options: GenerateOptions = {}): KernelConfig[] {
  const variants = options.variants ?? KERNEL_VARIANTS
  const strategies = options.strategies ?? BATCH_STRATEGIES
  const out: KernelConfig[] = []
  for (const bw of bitWidths) {
    for (const [m, n] of DEFAULT_TILE_SIZES[bw]) {
      for (const sg of SIMDGROUP_CONFIGS) {
        for (const v of variants) {
          for (const s of strategies) {
            out.push(createKernelConfig({ bit_width: bw, tile_size_m: m, tile_size_n: n, num_simdgroups: sg, kernel_variant: v, batch_strategy: s, use_fp32_acc: options.useFp32Acc ?? false }))
          }
        }
      }
    }
  }
  return out
}

export interface CompatOptions {
  useDecode?: boolean
  usePrefill?: boolean
  /** Replaces the variant list outright (quick mode passes the one the guide recommends). */
  variants?: readonly KernelVariant[]
  tileSizeMapping?: Readonly<Record<number, number>>
  simdgroupMapping?: Readonly<Record<number, number>>
  useFp32Acc?: boolean
}

/** The square tiles `_generate_configs` tries: sorted {max(32, base/2), base, max(base, 96)}. */
export function compatTileSizes(bw: number, mapping: Readonly<Record<number, number>> = DEFAULT_TILE_SIZE_MAPPING): number[] {
  const base = mapping[bw] ?? 64
  return [...new Set([Math.max(32, Math.floor(base / 2)), base, Math.max(base, 96)])].sort((a, b) => a - b)
}

/** The simdgroups `_generate_configs` tries: the deduplicated set {4, mapping[bw], 16}. */
export function compatSimdgroups(bw: number, mapping: Readonly<Record<number, number>> = DEFAULT_SIMDGROUP_MAPPING): number[] {
  return [...new Set([4, mapping[bw] ?? 8, 16])]
}

/**
 * `_generate_configs`, the compatibility form: variants base (+ decode, + prefill), square tiles
 * and simdgroups derived from the mappings, strategy hybrid.
 */
export function generateCompatConfigs(bitWidths: readonly BitWidth[], options: CompatOptions = {}): KernelConfig[] {
  const variants: KernelVariant[] = options.variants
    ? [...options.variants]
    : ['base', ...(options.useDecode ?? true ? (['decode'] as const) : []), ...(options.usePrefill ?? true ? (['prefill'] as const) : [])]
  const out: KernelConfig[] = []
  for (const bw of bitWidths) {
    for (const t of compatTileSizes(bw, options.tileSizeMapping)) {
      for (const sg of compatSimdgroups(bw, options.simdgroupMapping)) {
        for (const v of variants) {
          out.push(createKernelConfig({ bit_width: bw, tile_size_m: t, tile_size_n: t, num_simdgroups: sg, kernel_variant: v, use_fp32_acc: options.useFp32Acc ?? false }))
        }
      }
    }
  }
  return out
}

/** The guide's variant for a batch: decode 1, prefill 2–16, base 17–32, large_batch 33+. */
export function recommendedVariant(batch: number): KernelVariant {
  if (batch <= 1) return 'decode'
  if (batch <= 16) return 'prefill'
  if (batch <= 32) return 'base'
  return 'large_batch'
}

/** The guide's rule: fp32 accumulation when hidden ≥ 1024. */
export function recommendedFp32Acc(hidden: number): boolean {
  return hidden >= 1024
}
