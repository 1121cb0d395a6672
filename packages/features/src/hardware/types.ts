import type { HardwareSpec } from '@kerneltune/core'

/** A hardware preset: a complete HardwareSpec with an id, the labels it is known by, and notes. */
export type HardwarePreset = HardwareSpec & {
  id: string
  /** Other spellings (benchmark tables, marketing names) that `findHardwarePreset` accepts. */
  aliases: readonly string[]
  /** What was derived rather than read off a datasheet, and any labelling assumption. */
  notes?: string
  /**
   * The llama.cpp backend this hardware usually runs (CUDA on NVIDIA, Metal on Apple, ROCm on
   * AMD, SYCL on Intel GPUs); `HARDWARE_PRESETS` fills it in from the vendor where a preset omits it.
   */
  backend?: HardwareBackend
}

/** llama.cpp backends a preset can name as its usual one. */
export type HardwareBackend = 'cuda' | 'metal' | 'vulkan' | 'rocm' | 'sycl' | 'cpu'
