/**
 * AMD, Apple and Intel presets. `l2CacheMb` is the last-level on-chip cache: L2 on NVIDIA and
 * CDNA2, Infinity Cache on CDNA3 and RDNA3, unset on Apple (Apple does not publish its SLC size).
 * Apple GPUs run FP16 at the FP32 rate (M1–M4), so the FP16 figure is Apple's GPU TFLOPS figure.
 * `tdpWatts` is the board power of the AMD and Intel data sheets; Apple publishes none for its chips.
 */
import { partOf } from './define.ts'
import type { HardwarePreset } from './types.ts'

const amd = partOf('amd')
const intel = partOf('intel')

const MI300_DS = 'AMD Instinct MI300X accelerator data sheet (amd.com/en/products/accelerators/instinct/mi300/mi300x.html)'
const MI200_DS = 'AMD Instinct MI200 series data sheet (amd.com/en/products/accelerators/instinct/mi200.html)'
const MI100_TABLE = 'AMD Instinct MI100 specifications (notebookcheck.net, AMD announces CDNA-based Instinct MI100, specification table): 120 CUs, 23.1 TFLOPS FP32, 184.6 TFLOPS FP16 matrix, 184.6 TOPS INT8, 1.23 TB/s, 300 W; boost clock 1502 MHz (alkhaleejtoday.co, Server accelerator AMD Instinct MI100), 8 MB L2'
const MI60_TABLE = 'AMD Radeon Instinct MI60 specifications (llmperf.net/categories/gpu/AMD-Radeon-Instinct-MI60-GPUs, citing PC Perspective): 64 CUs, 1800 MHz boost, 32 GB HBM2, 1024 GB/s, 29.5 TFLOPS FP16, 59 TOPS INT8, 300 W'
const INSTINCT_TABLE = 'AMD Instinct product table (en.wikipedia.org/wiki/AMD_Instinct, Products table): MI50 60 CUs, 1024 GB/s, 26.5 TFLOPS FP16, 13.3 TFLOPS FP32'
const MI50_DB = 'Radeon Instinct MI50 card data (gpu.spicedreamphone.com/fr/gpu/amd/radeon-instinct-mi50, from the TechPowerUp database): 1746 MHz boost, 4 MB L2, 16 GB, 300 W'
const B70_TABLE = 'Intel Arc B-series reference (zolotukhin.ai/zinc/docs/intel-gpu-reference/, Product Specifications table, from Intel product pages): Arc Pro B70 32 Xe cores, 256 XMX engines, 2800 MHz max dynamic clock, 22.94 TFLOPS FP32, 367 INT8 TOPS, 230 W; 608 GB/s on a 256-bit bus, 32 GB'
const APPLE_M1 = 'Apple M1 / M1 Pro / M1 Max / M1 Ultra press releases and tech specs (apple.com/newsroom, support.apple.com/specs)'
const APPLE_M2 = 'Apple M2 / M2 Pro / M2 Max / M2 Ultra press releases and tech specs (apple.com/newsroom, support.apple.com/specs)'
const APPLE_M3 = 'Apple M3 family press release (apple.com/newsroom/2023/10) and MacBook Pro tech specs'
const APPLE_M4 = 'Apple M4 family press releases (apple.com/newsroom/2024) and MacBook Pro / Mac mini tech specs'
const APPLE_DERIVED = 'Apple publishes no TFLOPS for this chip: derived as GPU cores × 128 FP32 lanes × 2 (FMA) × GPU clock (M3 1.398 GHz, M4 1.58 GHz, as reported by die/driver analyses)'
const APPLE_SCALED = 'TFLOPS scaled from the full-core part by GPU core count'

const apple = (id: string, name: string, cores: number, bw: number, tflops: number, mem: number, arch: string, src: string, aliases: string[], notes?: string): HardwarePreset => ({
  id, name, vendor: 'apple', kind: 'soc', memBwGbs: bw, fp16Tflops: tflops, smCount: cores, memoryGb: mem,
  architecture: arch, unifiedMemory: true, sources: [src], aliases, ...(notes ? { notes } : {}),
})

export const AMD_PRESETS: readonly HardwarePreset[] = [
  amd({ id: 'mi300x', name: 'AMD Instinct MI300X', bw: 5300, fp16: 1307.4, sm: 304, l2: 256, mem: 192, tdp: 750, cc: 'gfx942', arch: 'CDNA 3' }, [MI300_DS], ['MI300X', 'AMD MI300X GPU', 'AMD MI300X'], 'l2CacheMb = 256 MB Infinity Cache (last level)'),
  amd({ id: 'mi325x', name: 'AMD Instinct MI325X', bw: 6000, fp16: 1307.4, sm: 304, l2: 256, mem: 256, tdp: 1000, cc: 'gfx942', arch: 'CDNA 3' }, ['AMD Instinct MI325X accelerator data sheet (amd.com/en/products/accelerators/instinct/mi300/mi325x.html)'], ['MI325X'], 'l2CacheMb = 256 MB Infinity Cache (last level)'),
  amd({ id: 'mi250x', name: 'AMD Instinct MI250X', bw: 3276.8, fp16: 383, sm: 220, l2: 16, mem: 128, tdp: 560, cc: 'gfx90a', arch: 'CDNA 2' }, [MI200_DS, 'AMD CDNA 2 architecture whitepaper (8 MB L2 per GCD)'], ['MI250X', 'AMD MI250X GPU']),
  amd({ id: 'mi250', name: 'AMD Instinct MI250', bw: 3276.8, fp16: 362.1, sm: 208, l2: 16, mem: 128, tdp: 500, cc: 'gfx90a', arch: 'CDNA 2' }, [MI200_DS, 'AMD CDNA 2 architecture whitepaper (8 MB L2 per GCD)'], ['MI250', 'AMD MI250 GPU']),
  amd({ id: 'mi210', name: 'AMD Instinct MI210', bw: 1638.4, fp16: 181, sm: 104, l2: 8, mem: 64, tdp: 300, cc: 'gfx90a', arch: 'CDNA 2' }, [MI200_DS], ['MI210']),
  amd({ id: 'mi100', name: 'AMD Instinct MI100', bw: 1228.8, fp16: 184.6, sm: 120, l2: 8, mem: 32, tdp: 300, cc: 'gfx908', arch: 'CDNA' }, [MI100_TABLE], ['MI100', 'AMD Instinct MI100', 'Instinct MI100'], 'fp16Tflops: the FP16 matrix-core figure; 1228.8 GB/s = 4096-bit × 2.4 Gbps (AMD rounds it to 1.23 TB/s)'),
  amd({ id: 'mi60', name: 'AMD Radeon Instinct MI60', bw: 1024, fp16: 29.5, sm: 64, l2: 4, mem: 32, tdp: 300, cc: 'gfx906', arch: 'GCN 5.1 (Vega 20)' }, [MI60_TABLE], ['MI60', 'Radeon Instinct MI60'], 'no matrix units: fp16Tflops is the packed-FP16 ALU rate'),
  amd({ id: 'mi50', name: 'AMD Radeon Instinct MI50', bw: 1024, fp16: 26.5, sm: 60, l2: 4, mem: 16, tdp: 300, cc: 'gfx906', arch: 'GCN 5.1 (Vega 20)' }, [INSTINCT_TABLE, MI50_DB], ['MI50', 'Radeon Instinct MI50', 'AMD Instinct MI50 (gfx906)', 'AMD Radeon Instinct MI60 / MI50 (label "MI60 / MI50", gfx906)'], 'no matrix units: fp16Tflops is the packed-FP16 ALU rate; the data label "MI60 / MI50" names either card of the Vega 20 die and is read as the MI50 (the lower figures; both are held out together as one die)'),
  amd({ id: 'rx-7900-xtx', name: 'AMD Radeon RX 7900 XTX', bw: 960, fp16: 122.8, sm: 96, l2: 96, mem: 24, tdp: 355, cc: 'gfx1100', arch: 'RDNA 3' }, ['AMD Radeon RX 7900 XTX specifications (amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xtx.html)'], ['RX 7900 XTX', '7900 XTX', '7900 XTX 24GB'], 'AMD "peak half precision" figure; l2CacheMb = 96 MB Infinity Cache'),
  amd({ id: 'rx-7900-xt', name: 'AMD Radeon RX 7900 XT', bw: 800, fp16: 103, sm: 84, l2: 80, mem: 20, tdp: 315, cc: 'gfx1100', arch: 'RDNA 3' }, ['AMD Radeon RX 7900 XT specifications (amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xt.html)'], ['RX 7900 XT', '7900 XT', '7900 XT 20GB'], 'AMD "peak half precision" figure; l2CacheMb = 80 MB Infinity Cache'),
  amd({ id: 'radeon-ai-pro-r9700', name: 'AMD Radeon AI PRO R9700', bw: 640, fp16: 191, sm: 64, l2: 64, mem: 32, tdp: 300, cc: 'gfx1201', arch: 'RDNA 4' }, ['AMD Radeon AI PRO R9700 specifications (amd.com/en/products/graphics/workstations/radeon-ai-pro/ai-9000-series/amd-radeon-ai-pro-r9700.html): 32 GB GDDR6, 640 GB/s, 64 CUs, 300 W'], ['R9700', 'Radeon AI PRO R9700', 'AMD Radeon AI PRO R9700 32GB', 'Radeon AI PRO R9700 32GB'], 'dense FP16 matrix figure (AMD gives 383 with structured sparsity); l2CacheMb = 64 MB Infinity Cache'),
  amd({ id: 'radeon-8060s', name: 'AMD Ryzen AI Max+ 395 (Strix Halo) Radeon 8060S', bw: 256, fp16: 59.4, sm: 40, mem: 128, cc: 'gfx1151', arch: 'RDNA 3.5', kind: 'soc', unified: true }, ['AMD Ryzen AI Max+ 395 specifications (amd.com/en/products/processors/laptop/ryzen/ai-max-300-series/amd-ryzen-ai-max-plus-395.html): Radeon 8060S, 40 CUs, 2.9 GHz, LPDDR5X-8000, 256-bit'], ['Strix Halo', 'Radeon 8060S', 'Ryzen AI Max+ 395', "AMD Ryzen AI Max+ 395 'Strix Halo' iGPU Radeon 8060S (gfx1151)"], 'FP16 derived: 40 CUs × 512 FLOPs per clock (RDNA 3.5 WMMA, dense) × 2.9 GHz; bandwidth 256-bit × 8000 MT/s ÷ 8; no board power (configurable 45–120 W)'),
  amd({ id: 'radeon-pro-w7900', name: 'AMD Radeon PRO W7900', bw: 864, fp16: 122.6, sm: 96, l2: 96, mem: 48, tdp: 295, cc: 'gfx1100', arch: 'RDNA 3' }, ['AMD Radeon PRO W7900 specifications (amd.com/en/products/graphics/workstations/radeon-pro/w7900.html)'], ['W7900', 'Radeon PRO W7900'], 'AMD "peak half precision" figure; l2CacheMb = 96 MB Infinity Cache'),
]

export const APPLE_PRESETS: readonly HardwarePreset[] = [
  apple('m1', 'Apple M1 (8-core GPU)', 8, 68.25, 2.6, 16, 'Apple G13', APPLE_M1, ['M1', 'M1 8-Core GPU']),
  apple('m1-7c', 'Apple M1 (7-core GPU)', 7, 68.25, 2.275, 8, 'Apple G13', APPLE_M1, ['M1 7-Core GPU', 'M1 7-Core GPU 8GB'], APPLE_SCALED),
  apple('m1-pro', 'Apple M1 Pro (16-core GPU)', 16, 200, 5.2, 32, 'Apple G13', APPLE_M1, ['M1 Pro']),
  apple('m1-max', 'Apple M1 Max (32-core GPU)', 32, 400, 10.4, 64, 'Apple G13', APPLE_M1, ['M1 Max', 'M1 Max 32-Core GPU', 'M1 Max 32-Core GPU 64GB']),
  apple('m1-max-24c', 'Apple M1 Max (24-core GPU)', 24, 400, 7.8, 32, 'Apple G13', APPLE_M1, ['M1 Max 24-Core GPU', 'M1 Max 24-Core GPU 32GB'], APPLE_SCALED),
  apple('m1-ultra', 'Apple M1 Ultra (64-core GPU)', 64, 800, 21, 128, 'Apple G13', APPLE_M1, ['M1 Ultra', 'Apple M1 Ultra (64-core GPU, 128GB) Mac Studio']),
  apple('m2', 'Apple M2 (10-core GPU)', 10, 100, 3.6, 24, 'Apple G14', APPLE_M2, ['M2']),
  apple('m2-pro', 'Apple M2 Pro (19-core GPU)', 19, 200, 6.8, 32, 'Apple G14', APPLE_M2, ['M2 Pro']),
  apple('m2-max', 'Apple M2 Max (38-core GPU)', 38, 400, 13.6, 96, 'Apple G14', APPLE_M2, ['M2 Max']),
  apple('m2-ultra', 'Apple M2 Ultra (76-core GPU)', 76, 800, 27.2, 192, 'Apple G14', APPLE_M2, ['M2 Ultra', 'M2 Ultra 76-Core GPU', 'M2 Ultra 76-Core GPU 192GB', 'Apple M2 Ultra (Mac Studio)']),
  apple('m2-ultra-60c', 'Apple M2 Ultra (60-core GPU)', 60, 800, 21.5, 64, 'Apple G14', APPLE_M2, ['M2 Ultra 60-Core GPU'], APPLE_SCALED),
  apple('m3', 'Apple M3 (10-core GPU)', 10, 100, 3.58, 16, 'Apple G15', APPLE_M3, ['M3', 'M3 10-Core GPU', 'M3 10-Core GPU 16GB'], APPLE_DERIVED),
  apple('m3-pro', 'Apple M3 Pro (18-core GPU)', 18, 150, 6.44, 36, 'Apple G15', APPLE_M3, ['M3 Pro'], APPLE_DERIVED),
  apple('m3-max', 'Apple M3 Max (40-core GPU)', 40, 400, 14.3, 128, 'Apple G15', APPLE_M3, ['M3 Max', 'M3 Max 40-Core GPU', 'M3 Max 40-Core GPU 48GB', 'M3 Max 40-Core GPU 64GB'], APPLE_DERIVED),
  apple('m3-ultra', 'Apple M3 Ultra (80-core GPU)', 80, 819, 28.6, 512, 'Apple G15', 'Apple Mac Studio (2025) press release and tech specs (apple.com/newsroom/2025/03)', ['M3 Ultra'], APPLE_DERIVED),
  apple('m4', 'Apple M4 (10-core GPU)', 10, 120, 4.04, 32, 'Apple G16', APPLE_M4, ['M4'], APPLE_DERIVED),
  apple('m4-pro', 'Apple M4 Pro (20-core GPU)', 20, 273, 8.09, 64, 'Apple G16', APPLE_M4, ['M4 Pro'], APPLE_DERIVED),
  apple('m4-max', 'Apple M4 Max (40-core GPU)', 40, 546, 16.2, 128, 'Apple G16', APPLE_M4, ['M4 Max'], APPLE_DERIVED),
]

export const INTEL_PRESETS: readonly HardwarePreset[] = [
  intel({ id: 'arc-pro-b70', name: 'Intel Arc Pro B70', bw: 608, fp16: 183.5, sm: 32, mem: 32, tdp: 230, arch: 'Xe2-HPG (BMG-G31)' }, [B70_TABLE], ['Arc Pro B70', 'B70', 'Intel Arc Pro B70 (BMG G31; repo intel-b70-ai-toolboxes; Vulkan device string "Intel(R) Graphics (BMG G31)")', 'Intel Arc B70 (as written in the comment; presumably Arc Pro B70, Battlemage)'], 'fp16Tflops derived: XMX FP16 dense = half the published 367 INT8 TOPS (Xe2 XMX: 2048 FP16 or 4096 INT8 ops per clock per Xe core)'),
  intel({ id: 'intel-max-1550', name: 'Intel Data Center GPU Max 1550 (Ponte Vecchio)', bw: 3276.8, fp16: 838.9, sm: 128, l2: 408, mem: 128, tdp: 600, arch: 'Xe-HPC' }, ['Intel Data Center GPU Max Series product brief (intel.com/content/www/us/en/products/details/discrete-gpus/data-center-gpu/max-series.html)'], ['Intel Max 1550', 'Max 1550', 'Intel PVC GPU', 'PVC', 'Ponte Vecchio'], 'smCount = Xe cores; "Intel PVC GPU" in Argonne LLM-Inference-Bench is the Max 1550 of ALCF Aurora'),
  intel({ id: 'gaudi2', name: 'Intel Gaudi 2', bw: 2450, fp16: 432, sm: 24, l2: 48, mem: 96, tdp: 600, arch: 'Gaudi 2', kind: 'accelerator' }, ['Intel Gaudi 2 AI accelerator product brief / white paper (habana.ai, intel.com/gaudi)'], ['Gaudi2', 'Gaudi 2', 'Habana Gaudi2'], 'smCount = tensor processor cores (TPCs); l2CacheMb = on-die SRAM; the BF16 figure is the matrix-engine peak from Intel material and is less certain than the bandwidth'),
]
