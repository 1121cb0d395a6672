import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BATCH_STRATEGIES, KERNEL_VARIANTS, SIMDGROUP_CONFIGS } from './constants.ts'
import {
  configId,
  createBenchmarkResult,
  createKernelConfig,
  kernelNameFor,
  parseConfigId,
  parseKernelName,
} from './kernel-config.ts'

describe('createKernelConfig', () => {
  it('should apply the upstream defaults and derive the name', () => {
    const c = createKernelConfig()
    expect(c).toEqual({
      tile_size_m: 64, tile_size_n: 64, num_simdgroups: 8, simdgroups: 8, kernel_variant: 'base',
      batch_strategy: 'hybrid', bit_width: 4, kernel_name: 'moe_trellis_mixed_swiglu', use_fp32_acc: false,
    })
    expect(configId(c)).toBe('4bit_64x64_8sg_base_hybrid')
  })

  it('should resolve the simdgroups alias both ways and reject disagreeing values', () => {
    expect(createKernelConfig({ simdgroups: 16 }).num_simdgroups).toBe(16)
    expect(createKernelConfig({ num_simdgroups: 4 }).simdgroups).toBe(4)
    expect(createKernelConfig({ num_simdgroups: null, simdgroups: null }).num_simdgroups).toBe(8)
    expect(() => createKernelConfig({ num_simdgroups: 4, simdgroups: 8 })).toThrow(/disagree/)
  })

  it('should name decode, prefill, large_batch and fp32acc kernels', () => {
    expect(createKernelConfig({ kernel_variant: 'decode' }).kernel_name).toContain('decode')
    expect(createKernelConfig({ kernel_variant: 'prefill', use_fp32_acc: true }).kernel_name).toBe('moe_trellis_mixed_swiglu_prefill_fp32acc')
    expect(kernelNameFor('large_batch', false)).toBe('moe_trellis_mixed_swiglu_large_batch')
    expect(createKernelConfig({ kernel_name: 'custom' }).kernel_name).toBe('custom')
  })

  it('should reject a bad variant, strategy, bit width or simdgroup count with the upstream message', () => {
    expect(() => createKernelConfig({ kernel_variant: 'turbo' })).toThrow("Invalid kernel_variant: turbo. Must be one of ['decode', 'prefill', 'base', 'large_batch']")
    expect(() => createKernelConfig({ batch_strategy: 'x' })).toThrow(/Invalid batch_strategy: x/)
    expect(() => createKernelConfig({ bit_width: 5 })).toThrow('Invalid bit_width: 5. Must be one of [2, 3, 4, 8]')
    expect(() => createKernelConfig({ simdgroups: 12 })).toThrow('Invalid num_simdgroups: 12. Must be one of [4, 8, 16]')
    expect(() => createKernelConfig({ tile_size_m: 0 })).toThrow(/tile_size_m/)
  })
})

describe('parseKernelName / parseConfigId', () => {
  it('should read every variant and fp32 flag back from a kernel name', () => {
    for (const v of KERNEL_VARIANTS) {
      for (const fp32 of [false, true]) expect(parseKernelName(kernelNameFor(v, fp32))).toEqual({ kernel_variant: v, use_fp32_acc: fp32 })
    }
    expect(parseKernelName('other_kernel')).toBeNull()
    expect(parseKernelName('moe_trellis_mixed_swiglu_base')).toBeNull()
  })

  it('should round-trip config ids, including large_batch and per_* that break upstream split("_")', () => {
    fc.assert(fc.property(
      fc.constantFrom(2, 3, 4, 8), fc.integer({ min: 1, max: 512 }), fc.integer({ min: 1, max: 512 }),
      fc.constantFrom(...SIMDGROUP_CONFIGS), fc.constantFrom(...KERNEL_VARIANTS), fc.constantFrom(...BATCH_STRATEGIES),
      (bit, m, n, sg, v, s) => {
        const c = createKernelConfig({ bit_width: bit, tile_size_m: m, tile_size_n: n, num_simdgroups: sg, kernel_variant: v, batch_strategy: s })
        expect(parseConfigId(configId(c))).toEqual(c)
      },
    ))
    expect(parseConfigId('4bit_64x64_8sg_large_batch_per_expert')?.kernel_variant).toBe('large_batch')
    expect(parseConfigId('4bit_64x64_12sg_base_hybrid')).toBeNull()
    expect(parseConfigId('nonsense')).toBeNull()
  })
})

describe('createBenchmarkResult', () => {
  const config = createKernelConfig()

  it('should fill throughput ⇄ gbps and bytes ⇄ MB both ways', () => {
    const a = createBenchmarkResult({ config, throughput_gbps: 12.5, memory_footprint_mb: 2 })
    expect(a.throughput).toBe(12.5)
    expect(a.memory_bytes).toBe(2 * 1024 * 1024)
    const b = createBenchmarkResult({ config, throughput: 3, memory_bytes: 1024 * 1024 })
    expect(b.throughput_gbps).toBe(3)
    expect(b.memory_footprint_mb).toBe(1)
  })

  it('should default to a successful empty result', () => {
    expect(createBenchmarkResult({ config })).toMatchObject({ batch_size: 0, hidden_dim: 0, latency_ms: 0, success: true, error_msg: '' })
  })
})
