import { describe, expect, it } from 'vitest'
import { onnxComboLabel, onnxSweepExtension, onnxSweepSpace, onnxWithoutDefaults } from './sweep-space.ts'

describe('onnxSweepSpace', () => {
  it('should cross intra-op threads up to the cores with the MatMulNBits accuracy in quick mode, and add execution mode and spinning in standard', () => {
    expect(onnxSweepSpace('quick', 2)).toEqual({ ort_intra_op_threads: ['auto', '1', '2'], ort_matmulnbits_accuracy: ['model', '4'] })
    expect(Object.keys(onnxSweepSpace('standard', 2))).toEqual(['ort_intra_op_threads', 'ort_matmulnbits_accuracy', 'ort_execution_mode', 'ort_intra_op_spinning'])
    expect(onnxSweepExtension(onnxSweepSpace('quick', 1)).dimensions.map((d) => [d.id, d.quickValues])).toEqual([['ort_intra_op_threads', ['auto', '1']], ['ort_matmulnbits_accuracy', ['model', '4']]])
  })

  it('should refuse an unknown dimension or value, naming what is known', () => {
    expect(() => onnxSweepSpace('quick', 2, { threads: ['1'] })).toThrow(/has no dimension threads; known: ort_/)
    expect(() => onnxSweepSpace('quick', 2, { ort_intra_op_threads: ['3'] })).toThrow(/unknown values 3/)
  })

  it('should leave out the values ORT uses by default, in the combination and its label', () => {
    expect(onnxWithoutDefaults({ ort_intra_op_threads: 'auto', ort_matmulnbits_accuracy: '4' })).toEqual({ ort_matmulnbits_accuracy: '4' })
    expect(onnxComboLabel({ ort_intra_op_threads: 'auto' })).toBe('(ORT defaults)')
    expect(onnxComboLabel({ ort_intra_op_threads: '2' })).toBe('intra_op_threads=2')
  })
})
