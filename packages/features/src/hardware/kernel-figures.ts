/**
 * The figures llama.cpp's kernels run at (issue 38), per preset, each with its source: the int8
 * rate of the units its quantized matrix kernels use, the FP16 rate of the shader ALUs, the boost
 * clock and the compute units. A figure no source gives stays unset; the regressor then multiplies
 * quantized weights at the FP16 matrix rate (its fallback) and says so in the query's docs.
 */
import type { HardwarePreset, KernelFigures } from './types.ts'

/**
 * NVIDIA tensor cores from Turing on: the dense INT8 rate is twice the dense FP16 rate in the same
 * accumulate mode in every table of the Turing, Ampere (GA100 and GA102), Ada, Hopper and Blackwell
 * whitepapers and datasheets (RTX 4090 330.3 / 660.6, A100 312 / 624, H100 SXM 989.4 / 1979, L40S 362 /
 * 733), so each preset's int8 figure is twice its FP16 tensor figure.
 */
const NV_INT8_RULE = 'int8Tops = 2 × fp16Tflops: dense INT8 tensor rate, twice the dense FP16 tensor rate in the Turing, Ampere, Ada, Hopper and Blackwell whitepaper and datasheet tables (RTX 4090 330.3 / 660.6, A100 312 / 624, H100 SXM 989.4 / 1979)'
const TENSOR_ARCHS = new Set(['Turing', 'Ampere', 'Ada Lovelace', 'Hopper', 'Blackwell'])

/** Presets whose figures come from their own documents (see each `kernelSources`). */
const SOURCED: Record<string, KernelFigures> = {
  'v100-pcie-16gb': {
    // Volta's tensor cores take FP16 only: MMQ's integer path on Volta is DP4A (ggml-cuda's int8 mma needs Turing).
    int8Tops: 56, fp16VectorTflops: 28, clockMhz: 1380, computeUnits: 80,
    kernelSources: ['NVIDIA Tesla V100 PCIe product brief PB-08744-001: 14 TFLOPS FP32, 1380 MHz boost, 80 SMs', 'derived: DP4A does 4 int8 multiply-adds per lane per clock, 4 × the FP32 FMA rate (56 TOPS); packed FP16 is 2 × FP32 (28 TFLOPS)'],
  },
  'p100-pcie-16gb': {
    // sm_60 has no DP4A, so no int8 figure: ggml-cuda emulates the dot product there.
    fp16VectorTflops: 18.7, clockMhz: 1300, computeUnits: 56,
    kernelSources: ['NVIDIA Tesla P100 PCIe launch specification table (tech4gamers.com): 18.7 TFLOPS FP16, 1300 MHz boost, 3584 cores (56 SMs); no DP4A on compute capability 6.0, so no int8 figure'],
  },
  mi100: {
    int8Tops: 184.6, fp16VectorTflops: 46.1, clockMhz: 1502, computeUnits: 120,
    kernelSources: ['AMD Instinct MI100 specification table (notebookcheck.net): 184.6 TOPS INT8 (matrix cores), 120 CUs, 23.1 TFLOPS FP32; 1502 MHz boost (alkhaleejtoday.co)', 'derived: packed FP16 on the vector ALUs = 2 × 23.1 FP32'],
  },
  mi60: {
    int8Tops: 59, fp16VectorTflops: 29.5, clockMhz: 1800, computeUnits: 64,
    kernelSources: ['AMD Radeon Instinct MI60 specifications (llmperf.net, citing PC Perspective): 59 TOPS INT8 (dot4 instructions, no matrix units), 29.5 TFLOPS FP16, 1800 MHz, 64 CUs'],
  },
  mi50: {
    int8Tops: 53, fp16VectorTflops: 26.5, clockMhz: 1746, computeUnits: 60,
    kernelSources: ['AMD Instinct product table (en.wikipedia.org/wiki/AMD_Instinct): 26.5 TFLOPS FP16, 60 CUs; 1746 MHz boost (gpu.spicedreamphone.com, TechPowerUp data)', 'derived: INT8 dot4 = 2 × FP16, the MI60\'s published ratio (59 / 29.5)'],
  },
  mi300x: {
    int8Tops: 2614.9, computeUnits: 304,
    kernelSources: ['AMD Instinct MI300X data sheet: 2614.9 TOPS INT8 dense, 304 CUs (rocm.docs.amd.com MI300 microarchitecture page: INT8 6.8 × the MI250X\'s 383 TOPS)'],
  },
  'arc-pro-b70': {
    int8Tops: 367, fp16VectorTflops: 45.9, clockMhz: 2800, computeUnits: 32,
    kernelSources: ['Intel Arc B-series reference (zolotukhin.ai/zinc/docs/intel-gpu-reference/, from Intel product pages): 367 INT8 TOPS (XMX), 22.94 TFLOPS FP32, 2800 MHz max dynamic, 32 Xe cores', 'derived: Xe2 vector engines run FP16 at 2 × FP32 (45.9 TFLOPS)'],
  },
}

/** The kernel figures of a preset: its own sourced ones, else the NVIDIA tensor-core rule where it applies. */
export function kernelFiguresOf(p: HardwarePreset): KernelFigures {
  const own = SOURCED[p.id]
  if (own) return own
  if (p.vendor === 'nvidia' && TENSOR_ARCHS.has(p.architecture ?? '')) {
    return { int8Tops: Math.round(p.fp16Tflops * 2 * 10) / 10, ...(p.smCount ? { computeUnits: p.smCount } : {}), kernelSources: [NV_INT8_RULE] }
  }
  return {}
}
