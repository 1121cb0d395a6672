import { describe, expect, it } from 'vitest'
import { sweepExtension, sweepSpace, threadValues, withoutDefaults } from './sweep-space.ts'

describe('sweep space', () => {
  it('should never try more threads than cores, and always try auto and the core count', () => {
    expect(threadValues(2)).toEqual(['auto', '1', '2'])
    expect(threadValues(16)).toEqual(['auto', '1', '2', '4', '8', '16'])
    expect(threadValues(1)).toEqual(['auto', '1'])
  })

  it('should turn a space into a catalog extension with only the swept dimensions and all the rules', () => {
    const space = sweepSpace('quick', 2)
    expect(space).toEqual({ threads: ['auto', '1', '2'], flash_attn: ['auto', 'off'], cache_type_v: ['f16', 'q8_0'] })
    const ext = sweepExtension(space)
    expect(ext.dimensions.map((d) => [d.id, d.quickValues])).toEqual([['threads', ['auto', '1', '2']], ['flash_attn', ['auto', 'off']], ['cache_type_v', ['f16', 'q8_0']]])
    expect(ext.coreDimensions).toEqual([])
    expect(ext.rules.map((r) => r.id)).toContain('llamacpp.quantized-v-cache-needs-flash-attn')
  })

  it('should reject unknown dimensions and values', () => {
    expect(() => sweepSpace('quick', 2, { threads: ['3'] })).toThrow(/unknown values 3/)
    expect(() => sweepSpace('quick', 2, { warp_size: ['32'] })).toThrow(/no dimension warp_size/)
  })

  it('should drop defaults', () => {
    expect(withoutDefaults({ threads: 'auto', flash_attn: 'off', batch_size: '2048' })).toEqual({ flash_attn: 'off' })
  })
})
