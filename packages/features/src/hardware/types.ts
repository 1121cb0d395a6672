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
} & KernelFigures

/**
 * The figures llama.cpp's prefill kernels run at, beside the datasheet FP16 matrix rate
 * (`fp16Tflops`): quantized weights go to integer kernels (MMQ on CUDA and ROCm: int8 tensor cores,
 * MFMA/WMMA, or DP4A/dot4 where there are none; Vulkan integer dot products; XMX on Intel), so a Q4_0
 * prefill runs at the int8 rate, not the FP16 one. Each figure is dense (no sparsity) and has its
 * source in `kernelSources`; a figure no source gives is left unset (kernel-figures.ts).
 */
export interface KernelFigures {
  /** Dense int8 throughput (TOPS) of the units MMQ-style kernels use: tensor/matrix cores, else dot-product instructions. */
  int8Tops?: number
  /** FP16 throughput (TFLOPS) of the shader ALUs, without tensor/matrix units. */
  fp16VectorTflops?: number
  /** Boost clock (MHz). */
  clockMhz?: number
  /** Compute units: SMs (NVIDIA), CUs (AMD), Xe cores (Intel), GPU cores (Apple). */
  computeUnits?: number
  /** Where each kernel figure comes from (document and table or page, or the derivation rule). */
  kernelSources?: readonly string[]
}

/** llama.cpp backends a preset can name as its usual one. */
export type HardwareBackend = 'cuda' | 'metal' | 'vulkan' | 'rocm' | 'sycl' | 'cpu'
