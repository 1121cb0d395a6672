/**
 * GPU tests: they run where the runtime has WebGPU (Deno with Mesa's lavapipe in CI, browsers)
 * and skip on Node and Bun, which have no navigator.gpu. Problems are small: lavapipe on two CPU
 * cores compiles each pipeline in about a tenth of a second.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { benchmarkKernel, measureCopyBandwidth } from './bench.ts'
import { FMA_PROBE, measureFmaThroughput } from './fma-probe.ts'
import { confirmSpeedup, tuneKernel } from './tune.ts'
import { closeGpu, onCloseGpu, openGpu, runtimeGpu, type GpuContext } from './gpu.ts'
import { configKey, defaultConfig, enumerateConfigs } from './params.ts'
import { KERNEL_KINDS, WEIGHT_FORMATS, type MatmulProblem } from './types.ts'

const quick = { warmup: 1, iterations: 3 }

describe('openGpu without an adapter', () => {
  it('should throw DEVICE_UNAVAILABLE when there is no WebGPU or no adapter', async () => {
    await expect(openGpu(null)).rejects.toMatchObject({ code: 'DEVICE_UNAVAILABLE' })
    const noAdapter = { requestAdapter: async () => null } as unknown as GPU
    await expect(openGpu(noAdapter)).rejects.toMatchObject({ code: 'DEVICE_UNAVAILABLE' })
  })
})

describe('closeGpu', () => {
  it('should drain the queue, release what is cached on a device, then destroy it, once', async () => {
    const order: string[] = []
    const queue = { onSubmittedWorkDone: async () => void order.push('drained') }
    const device = { queue, lost: new Promise(() => {}), destroy: () => void order.push('device') } as unknown as GPUDevice
    const gpu = { device } as GpuContext
    onCloseGpu(device, () => void order.push('buffers a'))
    onCloseGpu(device, () => void order.push('buffers b'))
    await closeGpu(gpu)
    expect(order).toEqual(['drained', 'buffers a', 'buffers b', 'device'])
    await closeGpu(gpu)
    expect(order).toEqual(['drained', 'buffers a', 'buffers b', 'device'])
  })

  it('should not wait for a lost device whose queue never drains', async () => {
    const order: string[] = []
    const queue = { onSubmittedWorkDone: () => new Promise(() => {}) }
    const device = { queue, lost: Promise.resolve({ reason: 'destroyed' }), destroy: () => void order.push('device') } as unknown as GPUDevice
    await closeGpu({ device } as GpuContext)
    expect(order).toEqual(['device'])
  })
})

describe.skipIf(requireOrSkip(Boolean(runtimeGpu()), 'WebGPU: this runtime has no navigator.gpu (the GPU suites run under Deno, on Mesa lavapipe in CI)', { runtimes: ['deno'] }))('kernels on the WebGPU device', () => {
  let gpu: GpuContext
  beforeAll(async () => {
    gpu = await openGpu()
  })
  // Drain, free the cached buffers, destroy the device: nothing is left for Deno's teardown of this
  // module's runtime (CI once aborted on heap corruption after this package's tests said ok).
  afterAll(async () => {
    if (gpu) await closeGpu(gpu)
  })

  it('should describe the adapter and its limits', () => {
    expect(gpu.adapterInfo.description.length + gpu.adapterInfo.vendor.length).toBeGreaterThan(0)
    expect(gpu.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256)
  })

  for (const kind of KERNEL_KINDS) {
    for (const format of WEIGHT_FORMATS) {
      // Odd sizes so that partial workgroups and tiles are exercised.
      const problem: MatmulProblem = kind === 'gemv' ? { format, m: 2, n: 70, k: 256 } : { format, m: 13, n: 40, k: 128 }
      it(`should compute ${kind} ${format} correctly with the default and varied configurations`, async () => {
        const all = enumerateConfigs(kind, format, problem, gpu.limits)
        const picks = [defaultConfig(kind, format), all[0]!, all[Math.floor(all.length / 2)]!, all[all.length - 1]!]
        for (const config of picks) {
          const r = await benchmarkKernel(gpu, kind, problem, config, quick)
          expect({ config, error: r.error, correct: r.correct }).toEqual({ config, error: undefined, correct: true })
          expect(r.maxAbsError).toBeLessThanOrEqual(r.tolerance)
          expect(r.latencyMs.samples.length).toBe(3)
          expect(r.latencyMs.median).toBeGreaterThan(0)
          expect(r.gbps).toBeGreaterThan(0)
          expect(r.flops).toBe(2 * problem.m * problem.n * problem.k)
        }
      })
    }
  }

  it('should time with cold weights over device copies that compute the same result', async () => {
    const problem: MatmulProblem = { format: 'q4_0', m: 1, n: 64, k: 256 }
    // 64×256 Q4_0: 8 KiB of quants and 1 KiB of scales, so 40 KiB asks for 5 copies.
    const r = await benchmarkKernel(gpu, 'gemv', problem, defaultConfig('gemv', 'q4_0'), { ...quick, iterations: 7, coldBytes: 40 << 10 })
    expect({ error: r.error, correct: r.correct }).toEqual({ error: undefined, correct: true })
    expect(r.weightCopies).toBe(5)
    expect(r.latencyMs.samples.length).toBe(7)
    const warm = await benchmarkKernel(gpu, 'gemv', problem, defaultConfig('gemv', 'q4_0'), quick)
    expect(warm.weightCopies).toBeUndefined()
  })

  it('should report an invalid configuration as an error without timing it', async () => {
    const r = await benchmarkKernel(gpu, 'gemv', { format: 'q4_0', m: 1, n: 64, k: 96 }, { workgroupSize: 64, rowsPerWorkgroup: 1, vecWidth: 1, unroll: 2 }, quick)
    expect(r.correct).toBe(false)
    expect(r.error).toMatch(/invalid configuration/)
    expect(r.latencyMs.samples).toEqual([])
  })

  it('should find no speed-up when the default is confirmed against itself on the device', async () => {
    // No true difference: fresh interleaved rounds must not invent one. A 99.9% interval keeps
    // chance failures rare; an order or caching bias (the second of a pair always faster) shows.
    const problem: MatmulProblem = { format: 'q4_0', m: 1, n: 256, k: 512 }
    const def = defaultConfig('gemv', 'q4_0')
    const c = await confirmSpeedup(gpu, 'gemv', problem, def, def, { warmup: 1, iterations: 5, rounds: 12, level: 0.999 })
    expect(c.baselineMs.length).toBe(12)
    expect(c.candidateMs.every((ms) => ms > 0)).toBe(true)
    expect(c.low).toBeLessThanOrEqual(1)
    expect(c.high).toBeGreaterThanOrEqual(1)
    expect(c.verdict).toBe('no-reliable-win')
  })

  it('should re-time the tuned winner afresh and keep the default unless the fresh interval is above 1', async () => {
    const problem: MatmulProblem = { format: 'q8_0', m: 8, n: 64, k: 256 }
    const t = await tuneKernel(gpu, 'gemm', problem, { warmup: 1, iterations: 3, maxConfigs: 5, confirmRounds: 4 })
    expect(t.best).toBeDefined()
    expect(t.selectionSpeedup).toBeGreaterThanOrEqual(1)
    if (configKey(t.best!.config) === configKey(defaultConfig('gemm', 'q8_0'))) {
      expect(t).toMatchObject({ speedup: 1, keep: 'default' })
      expect(t.confirmation).toBeUndefined()
    } else {
      const c = t.confirmation!
      expect(c.rounds).toBe(4)
      // Fresh timings, not the selection's: the selection winner's samples are not among them.
      for (const ms of c.candidateMs) expect(t.best!.latencyMs.samples).not.toContain(ms)
      expect(t.speedup).toBe(c.speedup)
      expect(c.low).toBeLessThanOrEqual(c.speedup)
      expect(c.high).toBeGreaterThanOrEqual(c.speedup)
      expect(t.keep).toBe(c.verdict === 'faster' ? 'tuned' : 'default')
    }
  })

  it('should measure a copy bandwidth', async () => {
    const c = await measureCopyBandwidth(gpu, 1 << 20, quick)
    expect(c.bytes).toBe(1 << 20)
    expect(c.gbps).toBeGreaterThan(0)
    expect(c.latencyMs).toBeGreaterThan(0)
  })

  it('should measure an f32 FMA rate whose result it checked, counting 2 FLOP per lane per FMA', async () => {
    const f = await measureFmaThroughput(gpu, { ...quick, workgroups: 4, steps: 256 })
    expect(f.workgroups).toBe(4)
    expect(f.flops).toBe(4 * FMA_PROBE.workgroupSize * 256 * FMA_PROBE.accumulators * 4 * 2)
    expect(f.latencyMs).toBeGreaterThan(0)
    expect(f.gflops).toBeCloseTo(f.flops / (f.latencyMs / 1e3) / 1e9, 6)
  })
})
