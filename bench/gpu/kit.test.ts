import { describe, expect, it } from 'vitest'
import type { KitContext } from './kit-context.ts'
import { parseCudaVersion, parseNvidiaSmiGpu } from './kit-env.ts'
import { benchFigures, compare } from './kit-models.ts'
import { kitPlan, presetForGpu } from './kit-plan.ts'
import { renderSummary, servingLines } from './kit-report.ts'
import { sweepArgs, sweepOutcome, sweepOutFile } from './kit-serving.ts'
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
    // The sweep covers flash attention, slots and a quantized V cache.
    expect(Object.keys(p.sweep.space).sort()).toEqual(['cache_type_v', 'flash_attn', 'parallel', 'threads'])
    expect(p.sweep.space.threads).toEqual(['auto'])
  })

  it('runs the same steps on the CPU with tiny models', () => {
    const p = kitPlan('cpu')
    expect(p.models.every((m) => m.family.startsWith('tiny'))).toBe(true)
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

describe('the GPU kit sweep', () => {
  // The kit's own command line (sweepArgs, what servingSweep runs), read by the CLI's own flag
  // parser and planned by the sweep's own planner: the arms are the ones the device would run.
  const planned = async (mode: 'cuda' | 'cpu', cores: number, has = { objectives: true, db: true, capacity: true, out: true }) => {
    const { parseArgs, COMMON_FLAGS } = await import('../../apps/cli/src/cli/args.ts')
    const { SWEEP_FLAGS } = await import('../../apps/cli/src/commands/sweep-flags.ts')
    const { parseSpace } = await import('../../apps/cli/src/commands/sweep.ts')
    const { planServingSweep } = await import('@kerneltune/compose/node')
    const plan = kitPlan(mode)
    const argv = sweepArgs({ plan, cli: 'kerneltune.mjs', workDir: '/kit' }, '/kit/m.gguf', 600, has)
    expect(argv.slice(0, 2)).toEqual(['kerneltune.mjs', 'sweep'])
    const f = parseArgs(argv.slice(2), [...COMMON_FLAGS, ...SWEEP_FLAGS]).flags
    const hardware = mode === 'cuda' ? { name: 'NVIDIA H100 80GB HBM3', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' } : { name: 'cpu', vendor: 'cpu', memBwGbs: 20, fp16Tflops: 0.5 }
    return { plan, argv, flags: f, sweep: planServingSweep(f.quick ? 'quick' : 'standard', hardware as never, cores, parseSpace(f.space as string)) }
  }

  it('varies only the dimensions the plan names, under sweep --quick (the first H100 run swept 24 arms, not 12, and outran its lease)', async () => {
    for (const [mode, cores] of [['cuda', 16], ['cpu', 2]] as const) {
      const { plan, sweep } = await planned(mode, cores)
      const space = plan.sweep.space
      // What the arms vary, read from the arms themselves: a dimension the sweep drops varies in none.
      const keys = [...new Set(sweep.candidates.flatMap((c) => Object.keys(c.combo)))]
      const varied = keys.filter((k) => new Set(sweep.candidates.map((c) => c.combo[k] ?? '(default)')).size > 1).sort()
      expect(varied, mode).toEqual(Object.keys(space).filter((k) => space[k]!.length > 1).sort())
      // Every candidate arm sets only the plan's dimensions, to values the plan lists.
      for (const { combo } of sweep.candidates) for (const [k, v] of Object.entries(combo)) expect(space[k] ?? [], `${mode} ${k}=${v}`).toContain(v)
      // The arms the sweep runs: the defaults plus every legal candidate.
      expect(sweep.candidates.length + 1, mode).toBeLessThanOrEqual(16)
    }
  })

  it('runs 7 arms on CUDA: a quantized V cache only with flash attention, so 8 combinations less 2, and the defaults', async () => {
    const { sweep } = await planned('cuda', 16)
    expect(sweep.candidates.length).toBe(6)
    expect(sweep.pruned.map((p) => [p.combo.flash_attn, p.combo.cache_type_v, p.rule])).toEqual([['off', 'q8_0', 'llamacpp.quantized-v-cache-needs-flash-attn'], ['off', 'q8_0', 'llamacpp.quantized-v-cache-needs-flash-attn']])
    expect(new Set(sweep.candidates.map((c) => c.combo.parallel))).toEqual(new Set(['auto', '8']))
  })

  it('asks for objectives, capacity and its own store only where the CLI has them and the plan wants them', async () => {
    const cuda = await planned('cuda', 16)
    expect(cuda.flags).toMatchObject({ slo: cuda.plan.sweep.slo, objective: 'goodput', capacity: true, capacityBy: 'concurrency', db: '/kit/kit-runs.db', rounds: cuda.plan.sweep.rounds, design: 'interleaved', backend: 'server' })
    // The time budget covers the whole command, capacity searches and report included: the step's whole budget.
    expect(cuda.flags.timeBudget).toBe(600)
    expect(cuda.flags.out).toBe(sweepOutFile({ workDir: '/kit' }))
    const bare = await planned('cuda', 16, { objectives: false, db: false, capacity: true, out: false })
    expect(bare.argv).not.toContain('--slo')
    expect(bare.argv).not.toContain('--capacity')
    expect(bare.argv).not.toContain('--db')
    expect(bare.argv).not.toContain('--out')
    expect(bare.flags.timeBudget).toBe(600)
    // The CPU variant never searches capacity (kit-plan.ts says why).
    expect((await planned('cpu', 2)).argv).not.toContain('--capacity')
  })

  it('keeps what a sweep it had to stop wrote after its last round, and what a finished one printed', () => {
    const proc = { code: null, signal: 'SIGTERM', stdout: '', stderrTail: '', seconds: 690, timedOut: true }
    const partial = { ok: true, partial: true, phase: 'rounds', rounds: 3, runId: 'r1' }
    expect(sweepOutcome(proc, JSON.stringify(partial))).toEqual({ result: partial, from: 'out' })
    expect(sweepOutcome(proc, undefined)).toEqual({ result: null, from: null })
    expect(sweepOutcome(proc, '{"ok": tru')).toEqual({ result: null, from: null })
    const done = { ok: true, rounds: 8 }
    expect(sweepOutcome({ ...proc, code: 3, signal: null, timedOut: false, stdout: JSON.stringify(done) }, JSON.stringify(partial))).toEqual({ result: done, from: 'stdout' })
    // The summary says which it was, and what the budget ended.
    const lines = servingLines({ exitCode: null, timedOut: true, resultFrom: 'out', result: { ...partial, verdict: 'v', budget: { note: 'time budget 500 s for the whole command; it ended the rounds' } } }, undefined)
    expect(lines[1]).toBe('- exit null (stopped at the kit\'s time limit: its result as of its last write, rounds, 3 rounds); verdict: v')
    expect(lines).toContain('- time budget 500 s for the whole command; it ended the rounds')
  })
})
