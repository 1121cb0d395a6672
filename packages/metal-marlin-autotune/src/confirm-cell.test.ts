/**
 * The tuner's confirmation phase on synthetic timings whose truth is known (the real-kernel path
 * is in adapters/webgpu.test.ts, under Deno on lavapipe).
 */
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '@kerneltune/core'
import { rowThroughput, type LayerBenchmarker } from './benchmark.ts'
import { generateCompatConfigs } from './config-generation.ts'
import { configId, createBenchmarkResult, type KernelConfig } from './kernel-config.ts'
import { MixedBpwAutoTuner } from './tuner.ts'
import { DEFAULT_SIMDGROUP_MAPPING, DEFAULT_TILE_SIZE_MAPPING } from './constants.ts'
import { defaultConfig } from './lookup.ts'

const mappings = { tileSizeMapping: DEFAULT_TILE_SIZE_MAPPING, simdgroupMapping: DEFAULT_SIMDGROUP_MAPPING }

/** Every call draws a fresh latency: true mean `truth(config)` ms, 5% lognormal noise. Records the options seen. */
function noisy(truth: (c: KernelConfig) => number, seed: number, seen: { fresh: boolean; id: string }[] = []): LayerBenchmarker {
  const u = mulberry32(seed)
  const z = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
  return async (c, batch, hidden, _inter, opts) => {
    seen.push({ fresh: opts.fresh === true, id: configId(c) })
    const ms = truth(c) * Math.exp(0.05 * z())
    return createBenchmarkResult({ config: c, batch_size: batch, hidden_dim: hidden, latency_ms: ms, throughput: rowThroughput(batch, hidden, ms) })
  }
}

const candidates = () => generateCompatConfigs([4], { variants: ['decode', 'prefill', 'base'] })

describe('benchmarkAll with confirmRounds', () => {
  it('should keep the default when the selection winner has no true advantage', async () => {
    let containsOne = 0
    let selectionSum = 0
    const trials = 40
    for (let seed = 1; seed <= trials; seed++) {
      // Every config truly takes 2 ms: any selection speed-up is the winner's curse.
      const t = new MixedBpwAutoTuner({ benchmarker: noisy(() => 2, seed), warmupIterations: 1, benchmarkIterations: 1 })
      const [cell] = await t.benchmarkAll({ bitSets: [[4]], batchSizes: [4], hiddenSizes: [256], configsFor: candidates, confirmRounds: 12, confirmSeed: seed })
      const c = cell!.confirmed!
      selectionSum += c.selectionSpeedup!
      if (c.confirmation && c.confirmation.low <= 1 && c.confirmation.high >= 1) {
        containsOne++
        expect(c.kept).toBe('default')
        expect(configId(t.selectKernel(4, 256, [4], false)!.config)).toBe(configId(defaultConfig(4, [4], mappings)))
      }
    }
    // Selection alone reports a speed-up that is not there (the winner's curse).
    expect(selectionSum / trials).toBeGreaterThan(1.03)
    expect(containsOne / trials).toBeGreaterThanOrEqual(0.85)
  })

  it('should keep a winner that is truly faster, with an interval around the true speed-up', async () => {
    const def = configId(defaultConfig(1, [4], mappings))
    const seen: { fresh: boolean; id: string }[] = []
    // The default takes 3 ms; one decode config takes 2 ms (1.5× faster); the rest 2.7 ms.
    const fast = (c: KernelConfig) => c.kernel_variant === 'decode' && c.num_simdgroups === 4 && c.tile_size_m === 64
    const truth = (c: KernelConfig) => (configId(c) === def ? 3 : fast(c) ? 2 : 2.7)
    const t = new MixedBpwAutoTuner({ benchmarker: noisy(truth, 11, seen), warmupIterations: 1, benchmarkIterations: 1 })
    const [cell] = await t.benchmarkAll({ bitSets: [[4]], batchSizes: [1], hiddenSizes: [256], configsFor: candidates, confirmRounds: 12 })
    const c = cell!.confirmed!
    expect(fast(cell!.best!.config)).toBe(true)
    expect(c.kept).toBe('tuned')
    expect(c.confirmation!.verdict).toBe('faster')
    expect(c.confirmation!.low).toBeLessThan(1.5)
    expect(c.confirmation!.high).toBeGreaterThan(1.5)
    expect(fast(t.selectKernel(1, 256, [4], false)!.config)).toBe(true)
    // 24 fresh measurements, all flagged so that a caching benchmarker measures anew.
    const fresh = seen.filter((s) => s.fresh)
    expect(fresh).toHaveLength(24)
    expect(new Set(fresh.map((s) => s.id))).toEqual(new Set([def, configId(cell!.best!.config)]))
  })

  it('should skip confirmation when the default wins selection, and when confirmRounds is 0', async () => {
    const def = configId(defaultConfig(1, [4], mappings))
    const truth = (c: KernelConfig) => (configId(c) === def ? 1 : 5)
    const t = new MixedBpwAutoTuner({ benchmarker: noisy(truth, 2), warmupIterations: 1, benchmarkIterations: 1 })
    const [cell] = await t.benchmarkAll({ bitSets: [[4]], batchSizes: [1], hiddenSizes: [256], configsFor: () => [...candidates(), defaultConfig(1, [4], mappings)], confirmRounds: 5 })
    expect(cell!.confirmed).toMatchObject({ kept: 'default', confirmation: null, selectionSpeedup: 1 })
    const off = new MixedBpwAutoTuner({ benchmarker: noisy(() => 2, 3), warmupIterations: 1, benchmarkIterations: 1 })
    const [plain] = await off.benchmarkAll({ bitSets: [[4]], batchSizes: [1], hiddenSizes: [256], configsFor: candidates })
    expect(plain!.confirmed).toBeUndefined()
    expect(configId(off.selectKernel(1, 256, [4], false)!.config)).toBe(configId(plain!.best!.config))
  })
})
