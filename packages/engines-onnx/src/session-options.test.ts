import { describe, expect, it } from 'vitest'
import type { Translation } from '@kerneltune/core'
import { onnxEngine } from './engine.ts'
import { sessionOptionsOf } from './session-options.ts'

const cpu = onnxEngine({ provider: 'cpu' })

describe('sessionOptionsOf', () => {
  it('should give the binding numbers, booleans and config entries, and the accuracy level apart', () => {
    const t = cpu.translate({ fusion_strategy: 'none', ort_execution_mode: 'parallel', ort_intra_op_threads: '2', ort_inter_op_threads: 'auto', ort_cpu_mem_arena: 'off', ort_mem_pattern: 'on', ort_intra_op_spinning: 'off', ort_matmulnbits_accuracy: '4' }) as Translation
    expect(sessionOptionsOf(t)).toEqual({
      options: {
        executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', executionMode: 'parallel', intraOpNumThreads: 2, interOpNumThreads: 0,
        enableCpuMemArena: false, enableMemPattern: true,
        extra: { session: { 'session.intra_op.allow_spinning': '0', 'session.qdq_matmulnbits_accuracy_level': '4' } },
      },
      matMulNBitsAccuracy: 4,
    })
  })

  it('should leave everything to ORT for the empty combination, and refuse a field it does not know', () => {
    expect(sessionOptionsOf(cpu.translate({}) as Translation)).toEqual({ options: { executionProviders: ['cpu'] } })
    const t = cpu.translate({}) as Translation
    expect(() => sessionOptionsOf({ ...t, files: { ...t.files, 'session_options.json': '{"graphOptimisationLevel":"all"}' } })).toThrow(/graphOptimisationLevel is not one/)
  })
})
