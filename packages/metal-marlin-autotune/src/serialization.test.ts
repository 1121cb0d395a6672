import { describe, expect, it } from 'vitest'
import { isKerneltuneError } from '@kerneltune/core'
import { createKernelConfig } from './kernel-config.ts'
import { MixedBpwAutoTuner } from './tuner.ts'

// The shape upstream's export_config writes: "2,4" bit keys, asdict configs, optimized_configs
// keyed "<b>_<bit>_<h>".
const UPSTREAM_EXPORT = `{
  "device": "m4",
  "device_name": "M4 Max",
  "device_family": "M4",
  "adaptation_enabled": false,
  "lookup_table": {
    "4": { "4096": { "2,4": { "tile_size_m": 128, "tile_size_n": 128, "num_simdgroups": 16, "kernel_variant": "prefill",
      "batch_strategy": "per_bitwidth", "bit_width": 2, "kernel_name": "moe_trellis_mixed_swiglu_prefill", "simdgroups": 16, "use_fp32_acc": false } } },
    "1": { "2048": { "4": { "tile_size_m": 64, "tile_size_n": 64, "num_simdgroups": 8, "kernel_variant": "decode",
      "batch_strategy": "hybrid", "bit_width": 4, "kernel_name": "moe_trellis_mixed_swiglu_decode", "simdgroups": 8, "use_fp32_acc": false } } }
  },
  "adaptation_timings": { "moe_trellis_mixed_swiglu_prefill_bs4_hd4096_bits(2, 4)": [1.0, 1.2] },
  "optimized_configs": { "4_4_4096": { "bit_width": 4, "batch_size": 4, "hidden_dim": 4096, "kernel_variant": "large_batch",
    "tile_size_m": 64, "tile_size_n": 64, "num_simdgroups": 8, "batch_strategy": "per_expert", "expected_latency_ms": 0.5, "throughput": 1000 } }
}`

// The guide's shape: "(2, 4)" keys, `simdgroups` only, extra mapping keys and benchmark_count.
const GUIDE_EXPORT = (sg: number) => `{
  "device_name": "M4 Max",
  "device_family": "M4",
  "tile_size_mapping": { "2": 128, "3": 96, "4": 64, "8": 64 },
  "simdgroup_mapping": { "2": 16, "3": ${sg}, "4": 8, "8": 4 },
  "lookup_table": { "4": { "4096": { "(2, 4)": { "kernel_name": "moe_trellis_mixed_swiglu_decode", "tile_size_m": 64,
    "tile_size_n": 64, "simdgroups": ${sg}, "use_fp32_acc": false, "kernel_variant": "decode" } } } },
  "adaptation_enabled": true,
  "adaptation_history_len": 100,
  "benchmark_count": 250
}`

function errorsOf(fn: () => unknown): string[] {
  try {
    fn()
  } catch (err) {
    if (isKerneltuneError(err)) return (err.details as { errors?: string[] })?.errors ?? [err.message]
    throw err
  }
  throw new Error('expected an error')
}

describe('exportConfig', () => {
  it('should write exactly the upstream keys, "2,4" bit keys and "<b>_<bit>_<h>" optimized keys', () => {
    const t = new MixedBpwAutoTuner({ deviceName: 'M4 Max' })
    t.setLookup(4, 4096, [4, 2], createKernelConfig({ bit_width: 2 }))
    t.recordLatency('k', 4, 1.25, 4096, [2, 4])
    const text = t.exportConfig()
    const json = JSON.parse(text)
    expect(Object.keys(json)).toEqual(['device', 'device_name', 'device_family', 'adaptation_enabled', 'lookup_table', 'adaptation_timings', 'optimized_configs'])
    expect(json.device).toBe('m4')
    expect(json.lookup_table['4']['4096']['2,4']).toMatchObject({ bit_width: 2, num_simdgroups: 8, simdgroups: 8 })
    expect(json.adaptation_timings['k_bs4_hd4096_bits(2, 4)']).toEqual([1.25])
    expect(text).toBe(JSON.stringify(json, null, 2))
  })

  it('should round-trip the lookup table, timings and adaptation flag', () => {
    const t = new MixedBpwAutoTuner({ deviceName: 'M2 Pro', enableOnlineAdaptation: false })
    t.setLookup(8, 1024, [8], createKernelConfig({ bit_width: 8, kernel_variant: 'large_batch', batch_strategy: 'per_expert' }))
    t.recordLatency('k', 8, 2, 1024, [8])
    const back = MixedBpwAutoTuner.loadConfig(t.exportConfig())
    expect(back.adaptationEnabled).toBe(false)
    expect(back.deviceFamily).toBe('M2')
    expect(back.selectKernel(8, 1024, [8])).toMatchObject({ method: 'exact', config: t.selectKernel(8, 1024, [8])!.config })
    expect(back.exportConfig()).toBe(t.exportConfig())
  })
})

describe('loadConfig', () => {
  it('should load a file in upstream export shape', () => {
    const t = MixedBpwAutoTuner.loadConfig(UPSTREAM_EXPORT)
    expect(t.deviceName).toBe('M4 Max')
    expect(t.adaptationEnabled).toBe(false)
    expect(t.selectKernel(6, 4096, [4, 2])).toMatchObject({ method: 'nearest_batch', distance: { batch: 2, hidden: 0 }, config: { batch_strategy: 'per_bitwidth', tile_size_m: 128 } })
    expect(t.selectKernel(1, 2048, [4])!.config.kernel_variant).toBe('decode')
    expect(t.adaptationTimings.get('moe_trellis_mixed_swiglu_prefill_bs4_hd4096_bits(2, 4)')).toEqual([1, 1.2])
    expect(t.getOptimalConfig(4, 4, 4096)!.kernel_variant).toBe('large_batch')
    expect(t.statistics()).toMatchObject({ lookup_table_entries: 2, adaptation_samples: 2, active_adaptation_keys: 1 })
  })

  it('should load the guide shape with "(2, 4)" keys and its mappings', () => {
    const t = MixedBpwAutoTuner.loadConfig(GUIDE_EXPORT(8))
    expect(t.selectKernel(4, 4096, [2, 4])).toMatchObject({ method: 'exact', config: { kernel_variant: 'decode', num_simdgroups: 8, bit_width: 4 } })
    expect(t.simdgroupMapping[3]).toBe(8)
    expect(t.exportConfig()).toContain('"2,4"')
  })

  it('should report every invalid entry with its path, like the guide example with 12 simdgroups', () => {
    const errors = errorsOf(() => MixedBpwAutoTuner.loadConfig(GUIDE_EXPORT(12)))
    expect(errors).toContain("lookup_table.4.4096.(2, 4): Invalid num_simdgroups: 12. Must be one of [4, 8, 16]")
    expect(errors).toContain('simdgroup_mapping.3: 12 is not an accepted simdgroup count (4, 8, 16)')
  })

  it('should name bad keys, unknown fields, wrong types and mismatched optimized keys', () => {
    const bad = {
      lookup_table: {
        x: { '4096': { '4': {} } },
        '4': { '4096': { '2;4': {}, '(2, 5)': {}, '8': { tile_size_m: 'big' }, '4': { colour: 'red' }, '2': { kernel_variant: 'turbo' } } },
      },
      optimized_configs: { '1_4_1': { bit_width: 4, batch_size: 4, hidden_dim: 4096, kernel_variant: 'base', tile_size_m: 64, tile_size_n: 64, num_simdgroups: 8, batch_strategy: 'hybrid', expected_latency_ms: 1, throughput: 1 } },
    }
    const errors = errorsOf(() => MixedBpwAutoTuner.loadConfig(bad))
    expect(errors.some((e) => e.startsWith('lookup_table.x:'))).toBe(true)
    expect(errors.some((e) => e.startsWith('lookup_table.4.4096.2;4:'))).toBe(true)
    expect(errors.some((e) => e.startsWith('lookup_table.4.4096.(2, 5):'))).toBe(true)
    expect(errors.some((e) => e.startsWith('lookup_table.4.4096.8.tile_size_m:'))).toBe(true)
    expect(errors.some((e) => e.startsWith('lookup_table.4.4096.4') && e.includes('colour'))).toBe(true)
    expect(errors).toContain("lookup_table.4.4096.2: Invalid kernel_variant: turbo. Must be one of ['decode', 'prefill', 'base', 'large_batch']")
    expect(errors.some((e) => e.startsWith('optimized_configs.1_4_1:'))).toBe(true)
    expect(errorsOf(() => MixedBpwAutoTuner.loadConfig({ adaptation_timings: { k: ['x'] } }))[0]).toMatch(/^adaptation_timings\.k\.0:/)
  })

  it('should reject text that is not JSON', () => {
    expect(() => MixedBpwAutoTuner.loadConfig('{')).toThrow(/not valid JSON/)
  })
})
