import { describe, it, expect } from 'vitest'
import { defaultConfig, generateWgsl } from '@kerneltune/gpu-kernels'
import { gemvTemplates } from './templates.ts'

describe('gemvTemplates', () => {
  it('should give distinct variants, each saying what it changed, none equal to the tuned kernel', () => {
    const p = { format: 'q4_0' as const, m: 2, n: 100, k: 256 }
    const vs = gemvTemplates(p)
    const tuned = generateWgsl('gemv', 'q4_0', defaultConfig('gemv', 'q4_0')).code
    expect(new Set(vs.map((v) => v.template)).size).toBe(vs.length)
    for (const v of vs) {
      expect(v.description.length).toBeGreaterThan(20)
      expect(v.code).not.toBe(tuned)
      expect(v.groups[1]).toBe(2)
    }
  })
  it('should leave out activation staging when the row does not fit in workgroup memory', () => {
    const p = { format: 'q8_0' as const, m: 1, n: 64, k: 8192 }
    expect(gemvTemplates(p, { maxComputeWorkgroupStorageSize: 16384 }).map((v) => v.template)).not.toContain('gemv.staged-activations')
    expect(gemvTemplates({ ...p, k: 1024 }).map((v) => v.template)).toContain('gemv.staged-activations')
  })
})
