import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTestGguf } from '../testing/gguf-writer.ts'
import { detectHardware, fromGguf, matchGpuPreset, parseNvidiaSmi, specFromDetected } from './node.ts'

describe('detectHardware', () => {
  it('should describe this machine without failing when nvidia-smi is absent', async () => {
    const d = await detectHardware()
    expect(d.cpu.threads).toBeGreaterThan(0)
    expect(d.cpu.cores).toBeGreaterThan(0)
    expect(d.cpu.ramGb).toBeGreaterThan(0)
    expect(d.cpu.numaNodes).toBeGreaterThanOrEqual(1)
    expect(['ok', 'absent'].includes(d.nvidiaSmi) || d.nvidiaSmi.startsWith('failed')).toBe(true)
    if (d.nvidiaSmi !== 'ok') expect(d.gpus).toEqual([])
  })

  it('should parse nvidia-smi CSV and match presets', () => {
    const gpus = parseNvidiaSmi('0, NVIDIA H100 80GB HBM3, 81559, 550.54.15, 9.0\n1, NVIDIA A100-SXM4-40GB, 40960, 535.1, 8.0\n2, NVIDIA GeForce RTX 4090, 24564, [N/A], 8.9\n')
    expect(gpus.map((g) => g.preset)).toEqual(['h100-sxm', 'a100-sxm-40gb', 'rtx-4090'])
    expect(gpus[0]).toMatchObject({ index: 0, memoryMb: 81559, driver: '550.54.15', computeCapability: '9.0' })
    expect(gpus[2]!.driver).toBeUndefined()
    expect(matchGpuPreset('NVIDIA H100 PCIe', 81559)).toBe('h100-pcie')
    expect(matchGpuPreset('Some Future GPU')).toBeUndefined()
  })

  it('should turn a GPU with a preset into that preset and a CPU into a labelled estimate', () => {
    const cpu = { model: 'x', arch: 'x64', platform: 'linux', cores: 4, threads: 8, mhz: 3000, ramGb: 16, numaNodes: 1, simd: { avx2: true, avx512f: false, fma: true, neon: false, amx: false } }
    expect(specFromDetected({ cpu, gpus: [{ index: 0, name: 'NVIDIA L4', preset: 'l4' }], nvidiaSmi: 'ok' }).id).toBe('l4')
    const spec = specFromDetected({ cpu, gpus: [], nvidiaSmi: 'absent' })
    expect(spec.kind).toBe('cpu')
    expect(spec.fp16Tflops).toBeCloseTo((4 * 3 * 32) / 1000, 10)
    expect(spec.memBwGbs).toBeGreaterThan(0)
    expect(spec.sources.join(' ')).toMatch(/measured here.*/)
  })
})

describe('fromGguf', () => {
  it('should read a GGUF file from disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-gguf-'))
    try {
      const path = join(dir, 'tiny.gguf')
      writeFileSync(path, writeTestGguf(
        { 'general.architecture': { type: 'string', value: 'llama' }, 'general.file_type': { type: 'u32', value: 7 }, 'llama.block_count': { type: 'u32', value: 3 } },
        [{ name: 'blk.0.attn_q.weight', dims: [64, 64], type: 8, bytes: (64 * 64 / 32) * 34 }],
      ))
      const r = await fromGguf(path)
      expect(r.model).toMatchObject({ quant: 'Q8_0', numLayers: 3, architecture: 'llama' })
      expect(r.parameterCount).toBe(4096)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
