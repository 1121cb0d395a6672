import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { DEFAULT_LIMITS, closeGpu, isValidConfig, openGpu, runtimeGpu } from '@kerneltune/gpu-kernels'
import { generateCompatConfigs, generateConfigs } from '../config-generation.ts'
import { configId, createKernelConfig, type KernelConfig } from '../kernel-config.ts'
import { runAutotuneJob, type AutotuneEvent } from './autotune-job.ts'
import { mapConfig } from './gpu-benchmarker.ts'

describe('mapConfig', () => {
  it('should map every 2-, 3-, 4- and 8-bit config onto a kernel config gpu-kernels accepts', () => {
    const formats: Record<number, string> = { 2: 'q2_0', 3: 'q3_0', 4: 'q4_0', 8: 'q8_0' }
    const configs = [...generateCompatConfigs([2, 3, 4, 8], { variants: ['decode', 'prefill', 'base', 'large_batch'] }), ...generateConfigs([2, 3, 4, 8], { strategies: ['hybrid'] })]
    for (const c of configs) {
      for (const batch of [1, 4, 16, 64]) {
        for (const hidden of [256, 512, 4096]) {
          const m = mapConfig(c, batch, hidden)
          if ('error' in m) throw new Error(m.error)
          expect(m.kind).toBe(c.kernel_variant === 'decode' ? 'gemv' : 'gemm')
          expect(m.format).toBe(formats[c.bit_width])
          expect(isValidConfig(m.kind, m.format, m.params, { format: m.format, m: batch, n: 4 * hidden, k: hidden }, DEFAULT_LIMITS)).toBe(true)
        }
      }
    }
  })

  it('should say there is no kernel for a bit width without a format', () => {
    for (const bit of [1, 5, 6]) {
      const m = mapConfig({ ...createKernelConfig({}), bit_width: bit as KernelConfig['bit_width'] }, 1, 256)
      expect('error' in m && m.error).toMatch(new RegExp(`no kernel for ${bit}-bit`))
    }
  })

  it('should turn simdgroups into 8 threads each and keep prefill off shared memory', () => {
    const gemv = mapConfig(createKernelConfig({ kernel_variant: 'decode', num_simdgroups: 16, tile_size_m: 32, tile_size_n: 64 }), 1, 4096)
    expect(gemv).toMatchObject({ kind: 'gemv', params: { workgroupSize: 128, rowsPerWorkgroup: 2, unroll: 1 } })
    const prefill = mapConfig(createKernelConfig({ kernel_variant: 'prefill', num_simdgroups: 8 }), 64, 4096)
    expect(prefill).toMatchObject({ kind: 'gemm', params: { tileM: 32, tileN: 32, useSharedMemory: false } })
    const p = (prefill as { params: Record<string, number> }).params
    expect((p.tileM! / p.threadM!) * (p.tileN! / p.threadN!)).toBe(64)
    expect(mapConfig(createKernelConfig({ kernel_variant: 'base' }), 64, 4096)).toMatchObject({ params: { useSharedMemory: true } })
  })
})

// Real kernels: runs where the runtime has WebGPU (Deno with Mesa lavapipe here); skipped on Node and Bun.
describe.skipIf(requireOrSkip(Boolean(runtimeGpu()), 'WebGPU: this runtime has no navigator.gpu (the GPU suites run under Deno, on Mesa lavapipe in CI)', { runtimes: ['deno'] }))('runAutotuneJob on real WGSL kernels', () => {
  it('should tune a tiny problem with every timed config verified, and fill the lookup table', async () => {
    const gpu = await openGpu()
    const events: AutotuneEvent[] = []
    try {
      const tuner = await runAutotuneJob(gpu, { bits: [2, 3, 4, 8], batchSizes: [1, 4], hiddenSizes: [256], warmup: 1, iterations: 3, guideVariantsOnly: true, mixed: false, confirmRounds: 3 }, (e) => events.push(e))
      const done = events.find((e) => e.event === 'done')
      if (!done || done.event !== 'done') throw new Error('no done event')
      expect(tuner.selectKernel(1, 256, [4])!.method).toBe('exact')
      // The guide's variant for batch 4 is prefill; the table holds it only if confirmed faster than the default (base).
      expect(['prefill', 'base']).toContain(tuner.selectKernel(4, 256, [8])!.config.kernel_variant)
      // Every bit width has a kernel (q2_0, q3_0, q4_0, q8_0): each cell is tuned.
      for (const bits of [2, 3, 4, 8]) {
        expect(done.cells.some((c) => c.bits[0] === bits)).toBe(true)
        expect(tuner.selectKernel(1, 256, [bits])!.method).toBe('exact')
      }
      expect(events.some((e) => e.event === 'log' && e.message.includes('no kernel for'))).toBe(false)
      for (const c of done.cells) {
        expect(c.best).not.toBeNull()
        expect(c.best!.latency_ms).toBeGreaterThan(0)
        expect(c.best!.kernel!.max_abs_error).toBeGreaterThanOrEqual(0)
        // Confirmation: the table holds the winner only when fresh rounds confirm it, else the default.
        expect(c.default!.success).toBe(true)
        const held = configId(tuner.selectKernel(c.batch, c.hidden, c.bits, false)!.config)
        expect(held).toBe(c.kept === 'tuned' ? c.best!.config_id : c.default!.config_id)
        if (c.confirmation) {
          expect(c.confirmation.rounds).toBe(3)
          expect(c.confirmation.candidateMs.every((ms) => ms > 0)).toBe(true)
          expect(c.kept).toBe(c.confirmation.verdict === 'faster' ? 'tuned' : 'default')
          expect(c.selection_speedup).toBeCloseTo(c.default!.latency_ms! / c.best!.latency_ms, 9)
        } else expect(c.best!.config_id === c.default!.config_id).toBe(true)
      }
      const timed = tuner.results.filter((r) => r.success)
      expect(timed.length).toBeGreaterThan(0)
      expect(timed.every((r) => r.kernel !== undefined && Number.isFinite(r.latency_ms))).toBe(true)
      const back = JSON.parse(JSON.stringify(done.config))
      expect(back.lookup_table['1']['256']['4'].kernel_variant).toBe('decode')
    } finally {
      await closeGpu(gpu)
    }
  }, 120_000)
})
