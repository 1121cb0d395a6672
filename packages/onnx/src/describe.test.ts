import { describe, expect, it } from 'vitest'
import { isKerneltuneError } from '@kerneltune/core'
import { describeOnnxDecoder } from './describe.ts'
import { synthOnnxLlama } from './llama-onnx.ts'

describe('describeOnnxDecoder', () => {
  it('should read back the shape and parameter count of every weight type the synthesizer writes', () => {
    for (const weights of ['fp32', 'fp16', 'q4'] as const) {
      const m = synthOnnxLlama({ params: 2e6, weights, vocabSize: 320, seed: 3 })
      const d = describeOnnxDecoder(m.bytes)
      expect({ ...d, params: 0 }).toEqual({
        weights,
        params: 0,
        layers: m.shape.layers,
        vocab: 320,
        hidden: m.shape.hidden,
        heads: m.shape.heads,
        kvHeads: m.shape.kvHeads,
      })
      // The norms and rotary caches come on top of the shape's weights, a few percent at most.
      expect(d.params / m.paramCount).toBeGreaterThanOrEqual(1)
      expect(d.params / m.paramCount).toBeLessThan(1.05)
    }
  })

  it('should refuse a file that is not an ONNX decoder with a typed error', () => {
    for (const bytes of [new TextEncoder().encode('root:x:0:0:root:/root:/bin/bash\n'), new Uint8Array(0)]) {
      let err: unknown
      try {
        describeOnnxDecoder(bytes)
      } catch (e) {
        err = e
      }
      expect(isKerneltuneError(err) && err.code).toBe('INVALID_FORMAT')
    }
  })
})
