import { describe, expect, it } from 'vitest'
import { HardwareSpecSchema, validateWith } from '@kerneltune/core'
import {
  HARDWARE_PRESETS,
  UNSUPPORTED_HARDWARE_LABELS,
  findHardwarePreset,
  getHardwarePreset,
  listHardwarePresets,
  normalizeHardwareLabel,
  parseDeviceCount,
  requireHardwarePreset,
  usualBackend,
} from './presets.ts'

// Every distinct hardware label in shared/data/llm_throughput (checked when the table was made),
// spelled as the files spell them, including the non-breaking hyphens of some Apple rows.
const DATA_LABELS: [string, string][] = [
  ['3070 8GB', 'rtx-3070'], ['3080 10GB', 'rtx-3080'], ['3080 Ti 12GB', 'rtx-3080-ti'], ['3090 24GB', 'rtx-3090'],
  ['3090 24GB * 6', 'rtx-3090'], ['4070 Ti 12GB', 'rtx-4070-ti'], ['4080 16GB', 'rtx-4080'], ['4090 24GB * 8', 'rtx-4090'],
  ['A100 80GB', 'a100-sxm-80gb'], ['A100 PCIe 80GB * 4', 'a100-pcie-80gb'], ['A100 SXM 80GB', 'a100-sxm-80gb'],
  ['A40 48GB * 4', 'a40'], ['H100 PCIe 80GB', 'h100-pcie'], ['L40S 48GB', 'l40s'],
  ['M1 7\u2011Core GPU 8GB', 'm1-7c'], ['M1 Max 24-Core GPU 32GB', 'm1-max-24c'], ['M1 Max 32\u2011Core GPU 64GB', 'm1-max'],
  ['M2 Ultra 76-Core GPU 192GB', 'm2-ultra'], ['M3 10-Core GPU 16GB', 'm3'], ['M3 Max 40-Core GPU 48GB', 'm3-max'],
  ['M3 Max 40\u2011Core GPU 64GB', 'm3-max'], ['RTX 4000 Ada 20GB * 2', 'rtx-4000-ada'], ['RTX 5000 Ada 32GB', 'rtx-5000-ada'],
  ['RTX 6000 Ada 48GB', 'rtx-6000-ada'], ['RTX A6000 48GB', 'rtx-a6000'],
  ['Nvidia A100 GPU', 'a100-sxm-40gb'], ['Nvidia H100 GPU', 'h100-sxm'], ['Nvidia GH200 GPU', 'gh200'],
  ['AMD MI250 GPU', 'mi250'], ['AMD MI300X GPU', 'mi300x'], ['Intel Max 1550', 'intel-max-1550'], ['Intel PVC GPU', 'intel-max-1550'],
  ['Habana Gaudi2', 'gaudi2'], ['NVIDIA DGX Spark (GB10)', 'gb10'], ['Apple M2 Ultra (Mac Studio)', 'm2-ultra'],
  // llamacpp_recent_builds.csv (PROVENANCE A4)
  ['NVIDIA GeForce RTX 5070 Ti (16GB, CC 12.0)', 'rtx-5070-ti'], ['NVIDIA GeForce RTX 5060 Ti (16GB, CC 12.0)', 'rtx-5060-ti'],
  ['NVIDIA GeForce RTX 2080 Ti (CC 7.5)', 'rtx-2080-ti'], ['NVIDIA GeForce RTX 2080 Ti', 'rtx-2080-ti'], ['NVIDIA GeForce RTX 3060 12GB', 'rtx-3060'],
  ['AMD Radeon AI PRO R9700 32GB', 'radeon-ai-pro-r9700'], ["AMD Ryzen AI Max+ 395 'Strix Halo' iGPU Radeon 8060S (gfx1151)", 'radeon-8060s'],
  ['NVIDIA GeForce RTX 4090', 'rtx-4090'], ['Apple M1 Ultra (64-core GPU, 128GB) Mac Studio', 'm1-ultra'], ['NVIDIA GeForce RTX 3090', 'rtx-3090'],
]

describe('HARDWARE_PRESETS', () => {
  it('should hold at least 30 valid presets with unique ids and a source for each', () => {
    expect(HARDWARE_PRESETS.length).toBeGreaterThanOrEqual(30)
    expect(new Set(HARDWARE_PRESETS.map((p) => p.id)).size).toBe(HARDWARE_PRESETS.length)
    for (const p of HARDWARE_PRESETS) {
      const { aliases: _a, notes: _n, ...spec } = p
      const r = validateWith(HardwareSpecSchema, spec)
      expect({ id: p.id, errors: r.ok ? [] : r.errors }).toEqual({ id: p.id, errors: [] })
      expect(p.sources.length).toBeGreaterThan(0)
      expect(p.smCount).toBeGreaterThan(0)
      expect(p.memoryGb).toBeGreaterThan(0)
    }
  })

  it('should cover NVIDIA data-centre and consumer, AMD Instinct and Radeon, and Apple M1–M4', () => {
    for (const id of ['h100-sxm', 'h100-pcie', 'a100-sxm-80gb', 'a100-pcie-40gb', 'h200', 'l40s', 'l4', 'a10g', 'rtx-4090', 'rtx-3090', 'rtx-3070', 'rtx-4080', 'rtx-5090', 'mi300x', 'mi250x', 'rx-7900-xtx', 'm1', 'm1-max', 'm1-ultra', 'm2-ultra', 'm3-max', 'm4-max', 'gh200', 'b200']) {
      expect(getHardwarePreset(id)?.id).toBe(id)
    }
    expect(listHardwarePresets('apple').length).toBeGreaterThanOrEqual(12)
    expect(listHardwarePresets('amd').length).toBeGreaterThanOrEqual(5)
    expect(getHardwarePreset('rtx-4090')).toMatchObject({ memBwGbs: 1008, smCount: 128, l2CacheMb: 72, memoryGb: 24 })
    expect(getHardwarePreset('m2-ultra')).toMatchObject({ unifiedMemory: true, smCount: 76, memBwGbs: 800 })
  })

  it('should name the usual llama.cpp backend of each preset (issue 26), none for Gaudi', () => {
    expect(getHardwarePreset('rtx-5070-ti')?.backend).toBe('cuda')
    expect(getHardwarePreset('m1-ultra')?.backend).toBe('metal')
    expect(getHardwarePreset('radeon-8060s')?.backend).toBe('rocm')
    expect(getHardwarePreset('intel-max-1550')?.backend).toBe('sycl')
    expect(getHardwarePreset('gaudi2')?.backend).toBeUndefined()
    expect(usualBackend({ vendor: 'nvidia', kind: 'gpu', backend: 'vulkan' })).toBe('vulkan')
  })
})

describe('kernel figures (issue 38)', () => {
  it('should give every kernel figure a source and keep a figure no source gives unset', () => {
    for (const p of HARDWARE_PRESETS) {
      const has = p.int8Tops !== undefined || p.fp16VectorTflops !== undefined || p.clockMhz !== undefined
      expect({ id: p.id, sourced: !has || (p.kernelSources?.length ?? 0) > 0 }).toEqual({ id: p.id, sourced: true })
    }
    // Pascal GP100 has no DP4A and Apple publishes no int8 rate: no figure.
    expect(getHardwarePreset('p100-pcie-16gb')?.int8Tops).toBeUndefined()
    expect(getHardwarePreset('m2-ultra')?.int8Tops).toBeUndefined()
  })

  it('should take NVIDIA int8 tensor rates as twice the FP16 tensor rate from Turing on, and the sourced figures elsewhere', () => {
    expect(getHardwarePreset('rtx-4090')?.int8Tops).toBe(660.6)
    expect(getHardwarePreset('a100-sxm-80gb')?.int8Tops).toBe(624)
    // Volta: cuBLAS FP16 tensor cores at prompt batches (MMQ's DP4A path only below 64 tokens), so no int8 figure.
    expect(getHardwarePreset('v100-pcie-16gb')).toMatchObject({ fp16Tflops: 112, memBwGbs: 900 })
    expect(getHardwarePreset('v100-pcie-16gb')?.int8Tops).toBeUndefined()
    expect(getHardwarePreset('mi100')).toMatchObject({ int8Tops: 184.6, fp16Tflops: 184.6, computeUnits: 120 })
    // Xe2: llama.cpp's integer kernels (Vulkan MMQ) run on the vector engines' DP4A, not on XMX.
    expect(getHardwarePreset('arc-pro-b70')).toMatchObject({ int8Tops: 91.8, fp16VectorTflops: 45.9, memBwGbs: 608, backend: 'sycl' })
  })

  it('should give NVIDIA parts their boost clock beside their SM count, from the spec page or FP32 ÷ (2 × cores) (issue 38, third round)', () => {
    expect(getHardwarePreset('rtx-4090')).toMatchObject({ clockMhz: 2520, computeUnits: 128 })
    expect(getHardwarePreset('h100-sxm')).toMatchObject({ clockMhz: 1980, computeUnits: 132 })
    // The derivation: 67 TFLOPS FP32 over 2 × 16,896 CUDA cores.
    expect(Math.abs(67e12 / (2 * 16896) / 1e6 - getHardwarePreset('h100-sxm')!.clockMhz!)).toBeLessThan(5)
    expect(getHardwarePreset('gb10')?.kernelSources?.join(' ')).toMatch(/31 TFLOPS FP32/)
    // A part no source gave a clock for has none (B200's FP32 rate per GPU was not found).
    expect(getHardwarePreset('b200')?.clockMhz).toBeUndefined()
    expect(listHardwarePresets().filter((x) => x.vendor === 'nvidia' && x.clockMhz !== undefined && !(x.computeUnits! > 0)).map((x) => x.id)).toEqual([])
  })

  it('should map the labels of llamacpp_gpu_rows_2026.csv to their presets', () => {
    expect(findHardwarePreset('Tesla V100-PCIE-16GB (CC 7.0, VRAM 16144 MiB)')?.id).toBe('v100-pcie-16gb')
    expect(findHardwarePreset('AMD Radeon Instinct MI60 / MI50 (label "MI60 / MI50", gfx906)')?.id).toBe('mi50')
    expect(findHardwarePreset('Intel Arc Pro B70 (BMG G31; repo intel-b70-ai-toolboxes; Vulkan device string "Intel(R) Graphics (BMG G31)")')?.id).toBe('arc-pro-b70')
  })
})

describe('findHardwarePreset', () => {
  it.each(DATA_LABELS)('should map the data label %s to %s', (label, id) => {
    expect(findHardwarePreset(label)?.id).toBe(id)
  })

  it('should leave labels without a verifiable preset unmapped, with a reason', () => {
    expect(findHardwarePreset('SambaNova SN40L')).toBeUndefined()
    expect(UNSUPPORTED_HARDWARE_LABELS[normalizeHardwareLabel('SambaNova SN40L')]).toMatch(/bandwidth/)
    expect(findHardwarePreset('Nonexistent GPU 9000')).toBeUndefined()
  })

  it('should parse device counts without eating an x inside a name', () => {
    expect(parseDeviceCount('4090 24GB * 4')).toEqual({ base: '4090 24GB', count: 4 })
    expect(parseDeviceCount('Intel Max 1550')).toEqual({ base: 'Intel Max 1550', count: 1 })
    expect(parseDeviceCount('H100 x 8')).toEqual({ base: 'H100', count: 8 })
  })

  it('should name the accepted ids when a preset is unknown', () => {
    expect(() => requireHardwarePreset('h900')).toThrow(/unknown hardware "h900"; accepted: h100-sxm/)
    expect(requireHardwarePreset('RTX 4090').id).toBe('rtx-4090')
  })
})
