/**
 * GPU tests of the 2- and 3-bit formats: every enumerated configuration of a small problem, for
 * both kernels, must match the CPU reference. Exhaustive because the q2_0/q3_0 readers index words
 * and bit planes per group, and each configuration walks groups, blocks and tiles differently.
 * Runs where the runtime has WebGPU (Deno with lavapipe); skips on Node and Bun.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { benchmarkKernel } from './bench.ts'
import { closeGpu, openGpu, runtimeGpu, type GpuContext } from './gpu.ts'
import { configKey, enumerateConfigs } from './params.ts'
import { KERNEL_KINDS, type MatmulProblem } from './types.ts'

// One run to check, one timed sample: these tests are about correctness, not speed.
const once = { warmup: 0, iterations: 1 }

describe.skipIf(requireOrSkip(Boolean(runtimeGpu()), 'WebGPU: this runtime has no navigator.gpu (the GPU suites run under Deno, on Mesa lavapipe in CI)', { runtimes: ['deno'] }))('2- and 3-bit kernels on the WebGPU device', () => {
  let gpu: GpuContext
  beforeAll(async () => {
    gpu = await openGpu()
  })
  // Drain, free the cached buffers, destroy the device: nothing is left for Deno's teardown of this
  // module's runtime (CI once aborted on heap corruption after this package's tests said ok).
  afterAll(async () => {
    if (gpu) await closeGpu(gpu)
  })

  for (const kind of KERNEL_KINDS) {
    for (const format of ['q2_0', 'q3_0'] as const) {
      // Odd sizes so that partial workgroups and tiles are exercised.
      const problem: MatmulProblem = kind === 'gemv' ? { format, m: 2, n: 70, k: 256 } : { format, m: 13, n: 40, k: 128 }
      it(`should compute ${kind} ${format} correctly with every enumerated configuration`, async () => {
        const all = enumerateConfigs(kind, format, problem, gpu.limits)
        expect(all.length).toBeGreaterThan(20)
        const wrong: string[] = []
        for (const config of all) {
          const r = await benchmarkKernel(gpu, kind, problem, config, once)
          if (r.error || !r.correct || !(r.maxAbsError <= r.tolerance)) wrong.push(`${configKey(config)}: ${r.error ?? 'incorrect'}`)
        }
        expect(wrong).toEqual([])
      }, 120_000)
    }
  }
})
