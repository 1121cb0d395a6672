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
    // Issue 38, corrected twice: the XMX engines' 367 INT8 TOPS serve no llama.cpp integer kernel. SYCL
    // has none (ggml_sycl_supports_mmq is false: dequantize to F16, oneDNN GEMM on XMX at fp16Tflops);
    // Vulkan builds no MMQ pipelines on a device with KHR cooperative matrices, which Xe2 has, so its
    // quantized prompts are dequantized into FP16 coopmat multiplies on XMX too (v3.5.0; v3.4.0 read it
    // as MMQ). int8Tops stays the vector engines' DP4A rate, what MMQ would use where it runs.
    int8Tops: 91.8, fp16VectorTflops: 45.9, clockMhz: 2800, computeUnits: 32,
    kernelSources: ['Intel Arc B-series reference (zolotukhin.ai/zinc/docs/intel-gpu-reference/, from Intel product pages): 367 INT8 TOPS (XMX), 22.94 TFLOPS FP32, 2800 MHz max dynamic, 32 Xe cores', 'derived: Xe2 vector engines run FP16 at 2 × FP32 (45.9 TFLOPS) and packed int8 dot products (DP4A) at 4 × FP32 (91.8 TOPS)', `int8Tops is the vector engines' DP4A rate, not XMX: MMQ (dotPacked4x8EXT, vulkan-shaders/mul_mmq_funcs.glsl:47) is the only llama.cpp kernel that would use int8 here, and Vulkan builds its pipelines only on a device with neither coopmat2 nor KHR coopmat (ggml_vk_load_shaders, ggml-vulkan.cpp:3647/3727/3849, MMQ at 3914-3926); Xe2 has KHR coopmat (ggml_vk_khr_cooperative_matrix_support, ggml-vulkan.cpp:16327), so its quantized prompts are dequantized into FP16 coopmat multiplies on XMX; SYCL has no MMQ (ggml_sycl_supports_mmq returns false, ggml-sycl.cpp:3289) and dequantizes to F16 for oneDNN (ggml-sycl.cpp:2148-2240); ${GG}`],
  },
}

/**
 * NVIDIA boost clocks (issue 38, third round: llama.cpp's MMQ tiles spend most of their time outside
 * the tensor instructions, in work that scales with SMs × clock). GeForce: the boost clock of NVIDIA's
 * specification page. Datacenter and workstation parts, whose datasheets give FP32 TFLOPS and CUDA
 * cores but not always a clock: clock = FP32 ÷ (2 × cores), rounded to 5 MHz. A part no source gave
 * a figure for has none.
 */
const NV_CLOCKS: Record<string, { mhz: number; source: string }> = {
  'h100-sxm': { mhz: 1980, source: 'NVIDIA H100 datasheet: 67 TFLOPS FP32, 16,896 CUDA cores (Hopper whitepaper) → 1980 MHz' },
  'h100-pcie': { mhz: 1755, source: 'NVIDIA H100 datasheet: 51 TFLOPS FP32, 14,592 CUDA cores (Hopper whitepaper) → 1750 MHz; the whitepaper table gives 1755' },
  'h100-nvl': { mhz: 1775, source: 'NVIDIA H100 NVL datasheet: 60 TFLOPS FP32, 16,896 CUDA cores → 1775 MHz' },
  h200: { mhz: 1980, source: 'NVIDIA H200 datasheet: 67 TFLOPS FP32 (SXM), GH100 with 16,896 CUDA cores → 1980 MHz' },
  gh200: { mhz: 1980, source: 'NVIDIA GH200 datasheet: 67 TFLOPS FP32, 16,896 CUDA cores → 1980 MHz' },
  'gh200-144gb': { mhz: 1980, source: 'NVIDIA GH200 datasheet: 67 TFLOPS FP32, 16,896 CUDA cores → 1980 MHz' },
  gb10: { mhz: 2520, source: 'NVIDIA at Hot Chips 2025 (GB10 architecture talk, reported by The Register): about 31 TFLOPS FP32; 6,144 CUDA cores (DGX Spark datasheet) → 2520 MHz' },
  'a100-sxm-80gb': { mhz: 1410, source: 'NVIDIA A100 datasheet and Ampere GA100 whitepaper: 19.5 TFLOPS FP32, 6,912 CUDA cores, 1410 MHz boost' },
  'a100-sxm-40gb': { mhz: 1410, source: 'NVIDIA A100 datasheet and Ampere GA100 whitepaper: 19.5 TFLOPS FP32, 6,912 CUDA cores, 1410 MHz boost' },
  'a100-pcie-80gb': { mhz: 1410, source: 'NVIDIA A100 datasheet: 19.5 TFLOPS FP32 (PCIe and SXM), 6,912 CUDA cores → 1410 MHz' },
  'a100-pcie-40gb': { mhz: 1410, source: 'NVIDIA A100 datasheet: 19.5 TFLOPS FP32 (PCIe and SXM), 6,912 CUDA cores → 1410 MHz' },
  l40s: { mhz: 2520, source: 'NVIDIA L40S datasheet: 91.6 TFLOPS FP32, 18,176 CUDA cores → 2520 MHz' },
  l40: { mhz: 2490, source: 'NVIDIA L40 datasheet: 90.5 TFLOPS FP32, 18,176 CUDA cores → 2490 MHz' },
  l4: { mhz: 2040, source: 'NVIDIA L4 datasheet: 30.3 TFLOPS FP32, 7,424 CUDA cores → 2040 MHz' },
  a40: { mhz: 1740, source: 'NVIDIA A40 datasheet: 37.4 TFLOPS FP32, 10,752 CUDA cores → 1740 MHz' },
  a10: { mhz: 1695, source: 'NVIDIA A10 datasheet: 31.2 TFLOPS FP32, 9,216 CUDA cores → 1695 MHz' },
  'rtx-6000-ada': { mhz: 2505, source: 'NVIDIA RTX 6000 Ada datasheet: 91.1 TFLOPS FP32, 18,176 CUDA cores → 2505 MHz' },
  'rtx-5000-ada': { mhz: 2550, source: 'NVIDIA RTX 5000 Ada datasheet: 65.3 TFLOPS FP32, 12,800 CUDA cores → 2550 MHz' },
  'rtx-4000-ada': { mhz: 2175, source: 'NVIDIA RTX 4000 Ada datasheet: 26.7 TFLOPS FP32, 6,144 CUDA cores → 2175 MHz' },
  'rtx-a6000': { mhz: 1800, source: 'NVIDIA RTX A6000 datasheet: 38.7 TFLOPS FP32, 10,752 CUDA cores → 1800 MHz' },
  'rtx-5090': { mhz: 2407, source: 'NVIDIA GeForce RTX 5090 specifications: boost clock 2.41 GHz (2407 MHz)' },
  'rtx-5080': { mhz: 2617, source: 'NVIDIA GeForce RTX 5080 specifications: boost clock 2.62 GHz (2617 MHz)' },
  'rtx-5070-ti': { mhz: 2452, source: 'NVIDIA GeForce RTX 5070 Ti specifications: boost clock 2.45 GHz (2452 MHz)' },
  'rtx-5060-ti': { mhz: 2572, source: 'NVIDIA GeForce RTX 5060 Ti specifications: boost clock 2.57 GHz (2572 MHz)' },
  'rtx-4090': { mhz: 2520, source: 'NVIDIA GeForce RTX 4090 specifications: boost clock 2.52 GHz' },
  'rtx-4080': { mhz: 2505, source: 'NVIDIA GeForce RTX 4080 specifications: boost clock 2.51 GHz (2505 MHz)' },
  'rtx-4070-ti': { mhz: 2610, source: 'NVIDIA GeForce RTX 4070 Ti specifications: boost clock 2.61 GHz' },
  'rtx-3090': { mhz: 1695, source: 'NVIDIA GeForce RTX 3090 specifications: boost clock 1.70 GHz (1695 MHz, GA102 whitepaper)' },
  'rtx-3080-ti': { mhz: 1665, source: 'NVIDIA GeForce RTX 3080 Ti specifications: boost clock 1.67 GHz (1665 MHz)' },
  'rtx-3080': { mhz: 1710, source: 'NVIDIA GeForce RTX 3080 specifications: boost clock 1.71 GHz' },
  'rtx-3070': { mhz: 1725, source: 'NVIDIA GeForce RTX 3070 specifications: boost clock 1.73 GHz (1725 MHz)' },
  'rtx-3060': { mhz: 1777, source: 'NVIDIA GeForce RTX 3060 specifications: boost clock 1.78 GHz (1777 MHz)' },
  'rtx-2080-ti': { mhz: 1545, source: 'NVIDIA GeForce RTX 2080 Ti specifications: boost clock 1545 MHz (reference; Founders Edition 1635)' },
}

/** The kernel figures of a preset: its own sourced ones, else the NVIDIA tensor-core rule where it applies. */
export function kernelFiguresOf(p: HardwarePreset): KernelFigures {
  const own = SOURCED[p.id]
  if (own) return own
  if (p.vendor === 'nvidia' && TENSOR_ARCHS.has(p.architecture ?? '')) {
    const clock = NV_CLOCKS[p.id]
    return {
      int8Tops: Math.round(p.fp16Tflops * 2 * 10) / 10,
      ...(p.smCount ? { computeUnits: p.smCount } : {}),
      ...(clock ? { clockMhz: clock.mhz } : {}),
      kernelSources: [NV_INT8_RULE, ...(clock ? [clock.source] : [])],
    }
  }
  return {}
}
