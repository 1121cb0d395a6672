import { describe, it, expect } from 'vitest'
import { createRegistry } from '@kerneltune/core'
import { configKey, defaultConfig, dispatchSize, enumerateConfigs, isValidConfig, kernelParameters, sharedBytes } from './params.ts'
import { gpuKernelProvider, gpuKernelProviders } from './provider.ts'
import { DEFAULT_LIMITS, KERNEL_KINDS, WEIGHT_FORMATS, type MatmulProblem } from './types.ts'

const decode: MatmulProblem = { format: 'q4_0', m: 1, n: 256, k: 1024 }
const prefill: MatmulProblem = { format: 'q4_0', m: 64, n: 256, k: 1024 }

describe('kernelParameters', () => {
  it('should declare the tunable dimensions of each kernel', () => {
    expect(kernelParameters('gemv', 'q4_0').map((p) => p.name)).toEqual(['workgroupSize', 'rowsPerWorkgroup', 'vecWidth', 'unroll'])
    expect(kernelParameters('gemm', 'f16').map((p) => p.name)).toEqual(['tileM', 'tileN', 'threadM', 'threadN', 'useSharedMemory'])
  })
  it('should return copies that callers may change', () => {
    const a = kernelParameters('gemv', 'q8_0')
    ;(a[0]!.values as unknown[]).push(9999)
    expect(kernelParameters('gemv', 'q8_0')[0]!.values).not.toContain(9999)
  })
})

describe('isValidConfig', () => {
  it('should accept the default configurations for typical problems', () => {
    for (const f of WEIGHT_FORMATS) {
      expect(isValidConfig('gemv', f, defaultConfig('gemv', f), { ...decode, format: f })).toBe(true)
      expect(isValidConfig('gemm', f, defaultConfig('gemm', f), { ...prefill, format: f })).toBe(true)
    }
  })
  it('should give reasons for values outside the space and missing parameters', () => {
    expect(isValidConfig('gemv', 'q4_0', { ...defaultConfig('gemv', 'q4_0'), unroll: 3 }, decode)).toMatch(/unroll=3/)
    expect(isValidConfig('gemv', 'q4_0', { workgroupSize: 64 }, decode)).toMatch(/missing parameter rowsPerWorkgroup/)
  })
  it('should enforce unroll dividing the block count and threads per row', () => {
    const p = { ...decode, k: 96 } // 3 blocks
    expect(isValidConfig('gemv', 'q4_0', { workgroupSize: 32, rowsPerWorkgroup: 1, vecWidth: 4, unroll: 2 }, p)).toMatch(/multiple of unroll/)
    expect(isValidConfig('gemv', 'q4_0', { workgroupSize: 32, rowsPerWorkgroup: 8, vecWidth: 4, unroll: 1 }, p)).toBe(true)
    const four = { ...decode, k: 128 } // 4 blocks
    expect(isValidConfig('gemv', 'q4_0', { workgroupSize: 32, rowsPerWorkgroup: 1, vecWidth: 1, unroll: 2 }, four)).toMatch(/idle/)
    expect(isValidConfig('gemv', 'q4_0', { workgroupSize: 32, rowsPerWorkgroup: 8, vecWidth: 1, unroll: 1 }, four)).toBe(true)
  })
  it('should respect device limits on threads and workgroup memory', () => {
    const cfg = { tileM: 64, tileN: 64, threadM: 2, threadN: 2, useSharedMemory: true }
    expect(sharedBytes('gemm', cfg)).toBe(16384)
    expect(isValidConfig('gemm', 'q4_0', cfg, prefill)).toMatch(/1024 threads exceed/)
    const big = { ...DEFAULT_LIMITS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024 }
    expect(isValidConfig('gemm', 'q4_0', cfg, prefill, big)).toBe(true)
    const small = { ...big, maxComputeWorkgroupStorageSize: 8192 }
    expect(isValidConfig('gemm', 'q4_0', cfg, prefill, small)).toMatch(/workgroup memory/)
  })
  it('should reject a problem whose format differs from the kernel', () => {
    expect(isValidConfig('gemv', 'q8_0', defaultConfig('gemv', 'q8_0'), decode)).toMatch(/differs/)
  })
})

describe('enumerateConfigs', () => {
  it.each(KERNEL_KINDS)('should list only valid, distinct %s configurations', (kind) => {
    const p = kind === 'gemv' ? decode : prefill
    const all = enumerateConfigs(kind, 'q4_0', p)
    expect(all.length).toBeGreaterThan(10)
    for (const c of all) expect(isValidConfig(kind, 'q4_0', c, p)).toBe(true)
    expect(new Set(all.map(configKey)).size).toBe(all.length)
    expect(all.map(configKey)).toContain(configKey(defaultConfig(kind, 'q4_0')))
  })
  it('should grow with the device limits', () => {
    const big = { ...DEFAULT_LIMITS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 32768 }
    expect(enumerateConfigs('gemm', 'q4_0', prefill, big).length).toBeGreaterThan(enumerateConfigs('gemm', 'q4_0', prefill).length)
  })
})

describe('dispatchSize', () => {
  it('should cover every output', () => {
    expect(dispatchSize('gemv', { workgroupSize: 64, rowsPerWorkgroup: 4, vecWidth: 1, unroll: 1 }, { ...decode, n: 10, m: 3 })).toEqual([3, 3, 1])
    expect(dispatchSize('gemm', { tileM: 16, tileN: 32, threadM: 1, threadN: 1, useSharedMemory: false }, { ...prefill, m: 17, n: 64 })).toEqual([2, 2, 1])
  })
})

describe('gpuKernelProvider', () => {
  it('should register in the core registry as a kernel provider', () => {
    const registry = createRegistry(gpuKernelProviders())
    const p = gpuKernelProvider('gemv', 'q8_0')
    expect(p.name).toBe('gpu-kernels:gemv-q8_0')
    expect(registry.list('kernel-provider').map((x) => x.name)).toContain('gpu-kernels:gemm-f16')
    expect(registry.list('kernel-provider').length).toBe(KERNEL_KINDS.length * WEIGHT_FORMATS.length)
    expect(p.isValid(p.defaultConfig, { format: 'q8_0', m: 1, n: 64, k: 256 })).toBe(true)
  })
  it('should generate WGSL and a reference of m×n outputs', async () => {
    const p = gpuKernelProvider('gemm', 'f16')
    const g = await p.generate(p.defaultConfig, { format: 'f16', m: 8, n: 16, k: 64 })
    expect(g.language).toBe('wgsl')
    expect(g.workgroupSize).toEqual([16, 16, 1])
    const ref = await p.reference({ format: 'f16', m: 8, n: 16, k: 64 })
    expect(ref.length).toBe(128)
  })
})
