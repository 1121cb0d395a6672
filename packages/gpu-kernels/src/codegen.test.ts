import { describe, it, expect } from 'vitest'
import { generateWgsl } from './codegen.ts'
import { defaultConfig, enumerateConfigs } from './params.ts'
import { KERNEL_KINDS, WEIGHT_FORMATS } from './types.ts'

describe('generateWgsl', () => {
  it.each(KERNEL_KINDS.flatMap((k) => WEIGHT_FORMATS.map((f) => [k, f] as const)))('should emit a %s %s kernel with its workgroup size', (kind, format) => {
    const g = generateWgsl(kind, format, defaultConfig(kind, format))
    expect(g.entryPoint).toBe('main')
    expect(g.code).toContain(`@workgroup_size(${g.workgroupSize.join(', ')})`)
    expect(g.code).toContain('fn main(')
    // q formats read a scales array; f16 has none (its binding would be unused and rejected).
    expect(g.code.includes('var<storage, read> scales')).toBe(format !== 'f16')
  })
  it('should unroll the block loop as configured', () => {
    const base = { workgroupSize: 64, rowsPerWorkgroup: 1, vecWidth: 4 }
    const count = (unroll: number) => generateWgsl('gemv', 'q8_0', { ...base, unroll }).code.split('let blk = wrow + b;').length - 1
    expect([count(1), count(2), count(4)]).toEqual([1, 2, 4])
  })
  it('should read activations as vec4 or scalars by vecWidth', () => {
    const base = { workgroupSize: 64, rowsPerWorkgroup: 2, unroll: 1 }
    expect(generateWgsl('gemv', 'q4_0', { ...base, vecWidth: 4 }).code).toContain('array<vec4<f32>>')
    expect(generateWgsl('gemv', 'q4_0', { ...base, vecWidth: 1 }).code).toContain('var<storage, read> x: array<f32>')
  })
  it('should stage tiles in workgroup memory only when asked', () => {
    const base = { tileM: 16, tileN: 32, threadM: 2, threadN: 2 }
    const shared = generateWgsl('gemm', 'q4_0', { ...base, useSharedMemory: true })
    expect(shared.code).toContain('var<workgroup> xs: array<vec4<f32>, 128>')
    expect(shared.code).toContain('var<workgroup> ws: array<vec4<f32>, 256>')
    expect(shared.workgroupSize).toEqual([16, 8, 1])
    expect(generateWgsl('gemm', 'q4_0', { ...base, useSharedMemory: false }).code).not.toContain('var<workgroup>')
  })
  it('should produce distinct code for distinct configurations', () => {
    const configs = enumerateConfigs('gemm', 'q8_0', { format: 'q8_0', m: 32, n: 64, k: 256 })
    const codes = new Set(configs.map((c) => generateWgsl('gemm', 'q8_0', c).code))
    expect(codes.size).toBe(configs.length)
  })
  it('should reject an unknown kind or format', () => {
    expect(() => generateWgsl('gemx' as never, 'q4_0', {})).toThrow(/unknown kernel kind/)
    expect(() => generateWgsl('gemv', 'q5_1' as never, {})).toThrow(/unknown weight format/)
  })
})
