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
/** Where the kernel facts below were read: the ggml tree llama.cpp syncs, a day before the Arc Pro B70 rows' build (b9039). */
const GG = 'ggml-org/ggml 5bb72360 (the sync of llama.cpp bf76ac77, 2026-05-05)'
const TENSOR_ARCHS = new Set(['Turing', 'Ampere', 'Ada Lovelace', 'Hopper', 'Blackwell'])

/** Presets whose figures come from their own documents (see each `kernelSources`). */
const SOURCED: Record<string, KernelFigures> = {
  'v100-pcie-16gb': {
    // No int8 figure (issue 38, corrected): Volta's tensor cores take FP16 only, and on a chip with FP16
    // tensor cores ggml-cuda's DP4A MMQ yields to cuBLAS from 64 tokens on, so a prompt's quantized
    // products run as dequantize + FP16 tensor-core GEMM at fp16Tflops (112), not at DP4A's 56 TOPS.
    fp16VectorTflops: 28, clockMhz: 1380, computeUnits: 80,
    kernelSources: ['NVIDIA Tesla V100 PCIe product brief PB-08744-001: 14 TFLOPS FP32, 1380 MHz boost, 80 SMs', 'derived: packed FP16 is 2 × FP32 (28 TFLOPS)', `no int8 figure: ggml_cuda_should_use_mmq returns !fp16_mma_hardware_available(cc) || ne11 < MMQ_DP4A_MAX_BATCH_SIZE on NVIDIA (mmq.cu:320; MMQ_DP4A_MAX_BATCH_SIZE 64, mmq.cuh:12; fp16_mma_hardware_available is true from Volta, common.cuh:290), so prompts of 64 tokens or more dequantize to F16 for cuBLAS; ${GG}`],
  },
  'p100-pcie-16gb': {
    // sm_60 has no DP4A, so no int8 figure: ggml-cuda emulates the dot product there.
    fp16VectorTflops: 18.7, clockMhz: 1300, computeUnits: 56,
    kernelSources: ['NVIDIA Tesla P100 PCIe launch specification table (tech4gamers.com): 18.7 TFLOPS FP16, 1300 MHz boost, 3584 cores (56 SMs); no DP4A on compute capability 6.0, so no int8 figure', `below GGML_CUDA_CC_DP4A (610) ggml_cuda_should_use_mmq returns false (mmq.cu:311): quantized prefill dequantizes to F16 for cuBLAS; decode's MMVQ dot products are emulated byte by byte (ggml_cuda_dp4a, common.cuh:697-703); ${GG}`],
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
    // Issue 38, corrected: the XMX engines' 367 INT8 TOPS serve no llama.cpp integer kernel. SYCL has
    // none (ggml_sycl_supports_mmq is false: dequantize to F16, oneDNN GEMM on XMX at fp16Tflops);
    // Vulkan's MMQ multiplies with packed int8 dot products on the vector engines.
    int8Tops: 91.8, fp16VectorTflops: 45.9, clockMhz: 2800, computeUnits: 32,
    kernelSources: ['Intel Arc B-series reference (zolotukhin.ai/zinc/docs/intel-gpu-reference/, from Intel product pages): 367 INT8 TOPS (XMX), 22.94 TFLOPS FP32, 2800 MHz max dynamic, 32 Xe cores', 'derived: Xe2 vector engines run FP16 at 2 × FP32 (45.9 TFLOPS) and packed int8 dot products (DP4A) at 4 × FP32 (91.8 TOPS)', `int8Tops is the vector engines' DP4A rate, not XMX: Vulkan MMQ uses dotPacked4x8EXT (vulkan-shaders/mul_mmq_funcs.glsl:47) for every quantized prompt on a device with integer dot products and no coopmat2 (ggml-vulkan.cpp:7633), and Xe2's KHR coopmat (ggml-vulkan.cpp:16332) serves only the F16 path; SYCL has no MMQ (ggml_sycl_supports_mmq returns false, ggml-sycl.cpp:3289) and dequantizes to F16 for oneDNN (ggml-sycl.cpp:2148-2240); ${GG}`],
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
