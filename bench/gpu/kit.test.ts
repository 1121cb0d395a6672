import { describe, expect, it } from 'vitest'
import type { KitContext } from './kit-context.ts'
import { parseCudaVersion, parseNvidiaSmiGpu } from './kit-env.ts'
import { benchFigures, compare } from './kit-models.ts'
import { kitPlan, presetForGpu } from './kit-plan.ts'
import { renderSummary } from './kit-report.ts'
import { parseKitArgs } from './kit.ts'

describe('the GPU kit plan', () => {
  it('measures 1B to 14B dense and two mixture-of-experts shapes in Q4_0, Q8_0 and F16 on CUDA, every Q4_0 first', () => {
    const p = kitPlan('cuda')
    expect(p.models.map((m) => m.id)).toEqual([
      'llama-1b-q4_0', 'llama-8b-q4_0', 'moe-q4_0', 'llama-3b-q4_0', 'llama-14b-q4_0', 'moe-128x-q4_0',
      'llama-1b-q8_0', 'llama-8b-q8_0', 'moe-q8_0', 'llama-3b-q8_0', 'llama-14b-q8_0', 'moe-128x-q8_0',
      'llama-1b-f16', 'llama-8b-f16', 'moe-f16', 'llama-3b-f16', 'llama-14b-f16',
    ])
    expect(p.models.find((m) => m.id === 'moe-q4_0')?.synthArgs).toContain('--experts')
    expect(p.models.some((m) => m.id === p.serveModel)).toBe(true)
    expect(p.models.some((m) => m.id === p.sweepModel)).toBe(true)
    expect(p.serve.concurrency).toEqual([1, 8, 32, 128])
    expect(p.serve.concurrency.every((c) => p.serve.requests(c) >= c)).toBe(true)
    // The sweep covers flash attention, slots, a quantized V cache and CUDA graphs.
    expect(Object.keys(p.sweep.space).sort()).toEqual(['cache_type_v', 'cuda_graph', 'flash_attn', 'parallel', 'threads'])
    expect(p.sweep.space.threads).toEqual(['auto'])
  })

  it('runs the same steps on the CPU with tiny models', () => {
    const p = kitPlan('cpu')
    expect(p.models.every((m) => m.family.startsWith('tiny'))).toBe(true)
    expect(p.sweep.space).not.toHaveProperty('cuda_graph')
  })

  it('maps nvidia-smi names to the datasheet presets, and none for unknown cards', () => {
    expect(presetForGpu('NVIDIA H100 80GB HBM3')).toBe('h100-sxm')
    expect(presetForGpu('NVIDIA H100 PCIe')).toBe('h100-pcie')
    expect(presetForGpu('NVIDIA H100 NVL')).toBe('h100-nvl')
    expect(presetForGpu('NVIDIA H200')).toBe('h200')
    expect(presetForGpu('NVIDIA GH200 480GB')).toBe('gh200')
    expect(presetForGpu('NVIDIA GeForce RTX 4090')).toBeUndefined()
  })
})

describe('the GPU kit parsers', () => {
  it('reads nvidia-smi and nvcc', () => {
    expect(parseNvidiaSmiGpu('NVIDIA H100 80GB HBM3, 580.159.04, 81559, 9.0')).toEqual({ name: 'NVIDIA H100 80GB HBM3', driver: '580.159.04', memoryMiB: 81559, computeCap: '9.0' })
    expect(parseNvidiaSmiGpu('')).toBeNull()
    expect(parseCudaVersion('| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |')).toBe('13.0')
    expect(parseCudaVersion('Cuda compilation tools, release 13.0, V13.0.88')).toBe('13.0.88')
    expect(parseCudaVersion('nothing')).toBeNull()
  })

  it('takes prefill from the pp row and decode from the tg row of llama-bench', () => {
    const rows = [
      { n_prompt: 512, n_gen: 0, avg_ts: 9000.5, stddev_ts: 20, samples_ts: [8980, 9020, 9001] },
      { n_prompt: 0, n_gen: 128, avg_ts: 150.2, stddev_ts: 0.5, samples_ts: [150, 150.4] },
    ]
    expect(benchFigures(rows, 'prefill')).toEqual({ tps: 9000.5, sd: 20, reps: 3, samples: [8980, 9020, 9001] })
    expect(benchFigures(rows, 'decode')?.tps).toBe(150.2)
    expect(benchFigures('not rows', 'decode')).toBeNull()
  })

  it('states the error against the measurement and whether the interval holds it', () => {
    const c = compare({ tps: 120, low: 100, high: 140 }, { tps: 150, sd: 1, reps: 3, samples: [] })
    expect(c.error).toBeCloseTo(-0.2)
    expect(c.insideInterval).toBe(false)
    expect(compare({ tps: 120 }, null)).toEqual({ predicted: { tps: 120 }, measured: null })
  })

  it('refuses bad arguments with the flag named', () => {
    expect(() => parseKitArgs(['--cli', 'k.mjs'])).toThrow(/--bin-dir/)
    expect(() => parseKitArgs(['--cli'])).toThrow(/pairs/)
    const ok = parseKitArgs(['--cli', 'k', '--bin-dir', 'b', '--out', 'o', '--work', 'w', '--mode', 'cpu', '--budget-s', '60'])
    expect(ok['budget-s']).toBe(60)
    expect(() => parseKitArgs(['--cli', 'k', '--bin-dir', 'b', '--out', 'o', '--work', 'w', '--mode', 'rocm', '--budget-s', '60'])).toThrow(/--mode/)
  })

  it('summarizes every model and every skip', () => {
    const ctx = { plan: kitPlan('cpu'), skipped: [{ step: 'serving-sweep', what: 'capacity', why: 'no --capacity' }] } as unknown as KitContext
    const text = renderSummary(ctx, [{ model: kitPlan('cpu').models[0]!, decode: compare({ tps: 90, low: 80, high: 120 }, { tps: 100, sd: 1, reps: 2, samples: [] }) }], [])
    expect(text).toContain('| tiny-q4_0 | 100.0 | 90.0 | 80–120 | -10% |')
    expect(text).toContain('- serving-sweep: capacity: no --capacity')
  })
})


describe('the GPU kit sweep space', () => {
  it('varies only the dimensions the plan names, under sweep --quick (the first H100 run swept 24 arms, not 12, and outran its lease)', async () => {
    const { servingSweepSpace } = await import('@kerneltune/engines-llamacpp')
    for (const [mode, cores] of [['cuda', 16], ['cpu', 2]] as const) {
      const plan = kitPlan(mode).sweep.space
      const space = { ...servingSweepSpace('quick', cores), ...plan }
      const varied = Object.entries(space).filter(([, v]) => v.length > 1).map(([k]) => k).sort()
      expect(varied).toEqual(Object.keys(plan).filter((k) => plan[k]!.length > 1).sort())
      const arms = Object.values(space).reduce((n, v) => n * v.length, 1)
      expect(arms).toBeLessThanOrEqual(16)
    }
  })
})
