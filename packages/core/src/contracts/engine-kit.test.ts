import { describe, expect, it } from 'vitest'
import { applyControls } from './engine-kit.ts'

describe('applyControls', () => {
  const controls = ['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'cuda_graph'] as const

  it('should accept the neutral value of an uncontrolled dimension, drop it and say it is left to the engine', () => {
    const r = applyControls('tgi', 'TGI', '3.3', { fusion_strategy: 'none', cuda_graph: 'off', threads: '4' }, controls)
    expect(r).toEqual({ ok: true, combo: { cuda_graph: 'off', threads: '4' }, notes: ['fusion_strategy=none: left to the engine (TGI has no control for fusion_strategy).'] })
  })

  it('should refuse any other value of an uncontrolled dimension with the reason', () => {
    const r = applyControls('tgi', 'TGI', '3.3', { fusion_strategy: 'aggressive' }, controls)
    expect(r).toMatchObject({ ok: false, engine: 'tgi', version: '3.3', dimension: 'fusion_strategy', value: 'aggressive' })
    expect(!r.ok && r.reason).toMatch(/TGI has no control for fusion_strategy.*only the neutral value none/)
  })

  it('should pass controlled and non-core dimensions through untouched', () => {
    expect(applyControls('e', 'E', '1', { attention_backend: 'xformers' }, controls)).toEqual({ ok: true, combo: { attention_backend: 'xformers' }, notes: [] })
  })
})
