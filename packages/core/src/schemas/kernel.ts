import { z } from 'zod'

/** trueno's kernel types, in index order (§A.2 of the reference). Index 15 is Unknown. */
export const KERNEL_TYPES = [
  'TiledQ4K', 'CoalescedQ4K', 'VectorizedQ4K', 'BatchedQ4K', 'Dp4aQ4K', 'FusedRmsNormQ4K',
  'CoalescedQ6K',
  'IncrementalAttention', 'MultiWarpAttention', 'BatchedAttention',
  'RmsNorm', 'VectorizedRmsNorm', 'BatchedRmsNorm',
  'FusedQKVHwDp4aQ4KGemv', 'Generic', 'Unknown',
] as const

export type KernelTypeName = (typeof KERNEL_TYPES)[number]
export const KernelTypeSchema: z.ZodEnum<{ [K in KernelTypeName]: K }> = z.enum(KERNEL_TYPES)

export const BOTTLENECK_CLASSES = ['Unknown', 'MemoryBound', 'ComputeBound', 'LaunchBound', 'AttentionBound'] as const
export type BottleneckClassName = (typeof BOTTLENECK_CLASSES)[number]
export const BottleneckClassSchema: z.ZodEnum<{ [B in BottleneckClassName]: B }> = z.enum(BOTTLENECK_CLASSES)
