/**
 * The tuner's constants, as in Metal Marlin's `autotune_mixed_bpw.py` (reference §B.1, §B.2).
 * Names keep the upstream vocabulary (tiles, simdgroups, variants) even though the kernels tuned
 * here are WGSL ones; `adapters/gpu-benchmarker.ts` documents how each maps onto them.
 */

/** The bit widths a config may target. */
export const BIT_WIDTHS = [2, 3, 4, 8] as const
export type BitWidth = (typeof BIT_WIDTHS)[number]

/** Candidate (tile_m, tile_n) pairs per bit width for the full product in `generateConfigs`. */
export const DEFAULT_TILE_SIZES: Readonly<Record<BitWidth, readonly (readonly [number, number])[]>> = {
  2: [[64, 64], [128, 64], [128, 128]],
  3: [[64, 64], [128, 64], [96, 96]],
  4: [[32, 32], [64, 64], [64, 32]],
  8: [[32, 32], [32, 64]],
}

/** Accepted simdgroup counts (the guide's 12 is an upstream gap: the code rejects it). */
export const SIMDGROUP_CONFIGS = [4, 8, 16] as const

export const KERNEL_VARIANTS = ['decode', 'prefill', 'base', 'large_batch'] as const
export type KernelVariant = (typeof KERNEL_VARIANTS)[number]

export const BATCH_STRATEGIES = ['per_expert', 'per_bitwidth', 'hybrid'] as const
export type BatchStrategy = (typeof BATCH_STRATEGIES)[number]

/** Base of every kernel name; variant and `_fp32acc` suffixes are appended. */
export const KERNEL_BASE_NAME = 'moe_trellis_mixed_swiglu'

/** `AutotuneConfig.tile_size_mapping`: the square tile of the default config per bit width. */
export const DEFAULT_TILE_SIZE_MAPPING: Readonly<Record<number, number>> = { 2: 128, 3: 96, 4: 64, 8: 64 }

/** `AutotuneConfig.simdgroup_mapping`: the simdgroups of the default config per bit width. */
export const DEFAULT_SIMDGROUP_MAPPING: Readonly<Record<number, number>> = { 2: 16, 3: 8, 4: 8, 8: 4 }

/** Samples a context needs before `adaptSelection` trusts it (upstream: 5). */
export const MIN_ADAPTATION_SAMPLES = 5

/** Samples `recordOnlineSample` needs before it may replace an optimized config (upstream: 10). */
export const MIN_ONLINE_SAMPLES = 10

export const DEFAULT_HISTORY_LENGTH = 100
