import { describe, expect, it } from 'vitest'
import { capabilityOf, parseComputeCapability } from './capability.ts'
import { A100, H100, L4, M2, MI300X, T4, gpu } from '../test/fixtures.ts'

describe('capabilityOf', () => {
  it('should parse compute capabilities', () => {
    expect([parseComputeCapability('9.0'), parseComputeCapability('8.9'), parseComputeCapability('12.0'), parseComputeCapability('sm_90a')]).toEqual([90, 89, 120, 90])
    expect(parseComputeCapability('nine')).toBeUndefined()
  })

  it('should model NVIDIA generations: FP8 from sm_89, BF16 from sm_80', () => {
    expect(capabilityOf(H100)).toMatchObject({ smVersion: 90, generation: 'hopper', fp8: true, bf16: true, cudaGraphs: true })
    expect(capabilityOf(L4)).toMatchObject({ smVersion: 89, generation: 'ada', fp8: true, bf16: true })
    expect(capabilityOf(A100)).toMatchObject({ smVersion: 80, generation: 'ampere', fp8: false, bf16: true })
    expect(capabilityOf(T4)).toMatchObject({ smVersion: 75, generation: 'turing', fp8: false, bf16: false })
  })

  it('should infer the SM from the architecture or the product name, and say so', () => {
    const byArch = capabilityOf(gpu('Some card', 'nvidia', undefined, 'Hopper'))
    expect(byArch.smVersion).toBe(90)
    expect(byArch.notes.join(' ')).toMatch(/inferred from architecture/)
    expect(capabilityOf(gpu('NVIDIA L40S', 'nvidia')).smVersion).toBe(89)
    const unknown = capabilityOf(gpu('Mystery GPU', 'nvidia'))
    expect(unknown).toMatchObject({ generation: 'unknown', fp8: false, bf16: false })
    expect(unknown.smVersion).toBeUndefined()
    expect(unknown.notes.join(' ')).toMatch(/compute capability unknown/)
  })

  it('should model AMD by gfx target and Apple/CPU without CUDA features', () => {
    expect(capabilityOf(MI300X)).toMatchObject({ vendor: 'amd', generation: 'cdna3', fp8: true, bf16: true, cudaGraphs: true })
    expect(capabilityOf(gpu('AMD Instinct MI250X', 'amd'))).toMatchObject({ generation: 'cdna2', fp8: false, bf16: true })
    expect(capabilityOf(M2)).toMatchObject({ vendor: 'apple', fp8: false, cudaGraphs: false })
    expect(capabilityOf(gpu('Xeon', 'cpu'))).toMatchObject({ generation: 'cpu', fp8: false, cudaGraphs: false })
  })
})
