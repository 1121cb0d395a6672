import { describe, expect, it } from 'vitest'
import { benchmarkMixed, estimateMemoryBytes, rowThroughput, type LayerBenchmarker } from './benchmark.ts'
import { generateCompatConfigs } from './config-generation.ts'
import { configId, createBenchmarkResult, createKernelConfig } from './kernel-config.ts'
import { MixedBpwAutoTuner } from './tuner.ts'
import { deviceConfigFileName, describeAdapter, detectDeviceFamily } from './device.ts'

// A deterministic fake: latency grows with distance from a 64-tile and with simdgroups; 3-bit
// configs throw (as a kernel that fails to compile would) and 16-simdgroup 8-bit ones report a
// wrong answer.
const fake: LayerBenchmarker = async (c, batch, hidden, inter) => {
  if (c.bit_width === 3) throw new Error('no kernel for 3-bit weights')
  if (c.bit_width === 8 && c.num_simdgroups === 16) {
    return createBenchmarkResult({ config: c, batch_size: batch, hidden_dim: hidden, latency_ms: Infinity, success: false, error_msg: 'wrong result' })
  }
  const ms = 1 + Math.abs(c.tile_size_m - 64) / 64 + c.num_simdgroups / 100 + (c.kernel_variant === 'decode' ? 0 : 0.5) + batch / 1000
  return createBenchmarkResult({ config: c, batch_size: batch, hidden_dim: hidden, latency_ms: ms, throughput: rowThroughput(batch, hidden, ms), memory_bytes: estimateMemoryBytes(c, batch, hidden, inter) })
}

describe('MixedBpwAutoTuner construction', () => {
  it('should derive family and device from the name ("M4 Max" → M4)', () => {
    const t = new MixedBpwAutoTuner({ deviceName: 'M4 Max' })
    expect([t.deviceFamily, t.device, t.deviceName]).toEqual(['M4', 'm4', 'M4 Max'])
    expect(new MixedBpwAutoTuner({ deviceName: 'llvmpipe' }).deviceFamily).toBe('Unknown')
    expect(new MixedBpwAutoTuner({ probe: () => 'Apple M3 Pro' }).deviceFamily).toBe('M3')
    expect([t.warmupIterations, t.benchmarkIterations, t.historyLength, t.adaptationEnabled]).toEqual([5, 20, 100, true])
  })

  it('should detect through a probe and survive a failing one', () => {
    expect(detectDeviceFamily(() => 'Apple M1')).toBe('m1')
    expect(detectDeviceFamily(() => 'Intel Xeon')).toBe('unknown')
    expect(detectDeviceFamily(() => { throw new Error('no sysctl') })).toBe('unknown')
    expect(deviceConfigFileName('M4 Max')).toBe('autotune_mixed_bpw_m4_max.json')
    expect(describeAdapter({ vendor: 'mesa', architecture: '', device: '', description: 'llvmpipe (LLVM 19, 256 bits)' })).toBe('mesa llvmpipe (LLVM 19, 256 bits)')
    expect(deviceConfigFileName('mesa llvmpipe (LLVM 19, 256 bits)')).toBe('autotune_mixed_bpw_mesa_llvmpipe_llvm_19_256_bits.json')
  })
})

describe('benchmarking', () => {
  it('should fail softly without a benchmarker', async () => {
    const t = new MixedBpwAutoTuner()
    const r = await t.benchmarkConfig(createKernelConfig(), 1, 256)
    expect(r).toMatchObject({ success: false, latency_ms: Infinity })
    expect(r.error_msg).toMatch(/no benchmarker/)
  })

  it('should log and skip failing configs, and fill both the lookup table and the optimized store', async () => {
    const logs: string[] = []
    const t = new MixedBpwAutoTuner({ benchmarker: fake, log: (m) => logs.push(m) })
    const progress: number[] = []
    const cells = await t.benchmarkAll({ bitSets: [[4], [8], [3]], batchSizes: [1, 4], hiddenSizes: [256], onProgress: (d, total) => progress.push(d / total) })
    expect(cells).toHaveLength(6)
    expect(progress.at(-1)).toBe(1)
    const four = cells.find((c) => c.bits[0] === 4 && c.batch === 1)!
    expect(four.best!.config).toMatchObject({ tile_size_m: 64, num_simdgroups: 4, kernel_variant: 'decode' })
    expect(t.selectKernel(1, 256, [4])).toMatchObject({ method: 'exact', config: four.best!.config })
    expect(t.getOptimalConfig(1, 4, 256)).toMatchObject({ tile_size_m: 64, num_simdgroups: 4, expected_latency_ms: four.best!.latency_ms })
    // 8-bit at 16 simdgroups "gave a wrong answer": never the best, always logged.
    const eight = cells.find((c) => c.bits[0] === 8 && c.batch === 4)!
    expect(eight.best!.config.num_simdgroups).toBe(4)
    expect(logs.some((l) => l.includes('8bit_') && l.includes('16sg') && l.includes('wrong result'))).toBe(true)
    // 3-bit always throws: no entry, a log line, and selection falls back to the default.
    expect(cells.find((c) => c.bits[0] === 3)!.best).toBeNull()
    expect(logs.some((l) => l.startsWith('no config succeeded for bits 3'))).toBe(true)
    expect(t.selectKernel(1, 256, [3])!.method).toBe('default')
    const s = t.statistics()
    expect(s.total_benchmarks).toBe(cells.reduce((n, c) => n + c.results.length, 0))
    expect(s.failed_benchmarks).toBeGreaterThan(0)
    expect(s.successful_benchmarks + s.failed_benchmarks).toBe(s.total_benchmarks)
    expect(s.lookup_table_entries).toBe(4)
  })

  it('should time a mixed layer on every member width and add the latencies', async () => {
    const c = createKernelConfig({ bit_width: 4, tile_size_m: 64, tile_size_n: 64, num_simdgroups: 4 })
    const single4 = await fake(c, 4, 256, 1024, { warmup: 0, iterations: 1 })
    const single8 = await fake(createKernelConfig({ ...c, kernel_name: null, bit_width: 8 }), 4, 256, 1024, { warmup: 0, iterations: 1 })
    const mixed = await benchmarkMixed(fake, c, [4, 8], 4, 256, 1024, { warmup: 0, iterations: 1 })
    expect(mixed.success).toBe(true)
    expect(mixed.latency_ms).toBeCloseTo(single4.latency_ms + single8.latency_ms, 12)
    const failed = await benchmarkMixed(fake, c, [3, 4], 4, 256, 1024, { warmup: 0, iterations: 1 })
    expect(failed.success).toBe(false)
    expect(failed.error_msg).toMatch(/3-bit member/)
  })

  it('runAutotune should fill the lookup table too (upstream fills only optimized_configs)', async () => {
    const t = new MixedBpwAutoTuner({ benchmarker: fake })
    const opt = await t.runAutotune([4], [1], [256])
    expect(opt.size).toBe(1)
    expect(t.selectKernel(1, 256, [4])!.method).toBe('exact')
  })

  it('should pick the nearest optimized config by 1000|Δbit| + 100|Δbatch| + 0.1|Δhidden|', async () => {
    const t = new MixedBpwAutoTuner({ benchmarker: fake })
    const configs = generateCompatConfigs([4]).slice(0, 2)
    await t.benchmarkAll({ bitSets: [[4], [8]], batchSizes: [1, 8], hiddenSizes: [256, 4096], configsFor: (bits) => bits[0] === 8 ? generateCompatConfigs([8]).slice(0, 2) : configs })
    expect(t.getOptimalConfig(2, 4, 300)).toMatchObject({ batch_size: 1, bit_width: 4, hidden_dim: 256 })
    expect(t.getOptimalConfig(8, 2, 4096)).toMatchObject({ bit_width: 4 })
    expect(new MixedBpwAutoTuner().getOptimalConfig(1, 4, 256)).toBeNull()
  })
})

describe('recordOnlineSample', () => {
  it('should replace the optimized config after 10 samples when a large_batch/per_expert config is faster', async () => {
    const t = new MixedBpwAutoTuner({ benchmarker: fake })
    await t.benchmarkAll({ bitSets: [[4]], batchSizes: [64], hiddenSizes: [256], configsFor: () => [createKernelConfig({ kernel_variant: 'base' })] })
    const expected = t.getOptimalConfig(64, 4, 256)!.expected_latency_ms
    const better = configId(createKernelConfig({ kernel_variant: 'large_batch', batch_strategy: 'per_expert' }))
    let replaced = false
    for (let i = 0; i < 10; i++) replaced = t.recordOnlineSample(64, 4, 256, better, expected / 2)
    expect(replaced).toBe(true)
    expect(t.getOptimalConfig(64, 4, 256)).toMatchObject({ kernel_variant: 'large_batch', batch_strategy: 'per_expert', expected_latency_ms: expected / 2 })
    expect(t.statistics().num_online_samples).toBe(10)
  })

  it('should do nothing when adaptation is disabled, or before 10 samples', async () => {
    const off = new MixedBpwAutoTuner({ enableOnlineAdaptation: false })
    expect(off.recordOnlineSample(1, 4, 256, '4bit_64x64_8sg_base_hybrid', 1)).toBe(false)
    expect(off.onlineHistory.size).toBe(0)
  })
})

describe('reset and statistics', () => {
  it('should report an empty tuner and clear everything on reset', async () => {
    const t = new MixedBpwAutoTuner({ benchmarker: fake, configPath: 'x.json' })
    expect(t.statistics()).toMatchObject({ config_path: 'x.json', total_benchmarks: 0, lookup_table_entries: 0, adaptation_samples: 0 })
    await t.runAutotune([4], [1], [256])
    t.recordLatency('k', 1, 1, 256, [4])
    t.recordLatency('k', 1, 2, 256, [4])
    expect(t.statistics()).toMatchObject({ lookup_table_entries: 1, adaptation_samples: 2, active_adaptation_keys: 1 })
    t.reset()
    expect(t.statistics()).toMatchObject({ total_benchmarks: 0, lookup_table_entries: 0, adaptation_samples: 0, num_online_samples: 0 })
    expect(t.optimizedConfigs.size).toBe(0)
  })
})
