import { describe, expect, it } from 'vitest'
import { isKerneltuneError } from '@kerneltune/core'
import { setMatMulNBitsAccuracy } from './edit.ts'
import { synthOnnxLlama } from './llama-onnx.ts'
import { onnx } from './proto.ts'

const SHAPE = { params: 1e6, hidden: 128, layers: 1, vocabSize: 320, contextLength: 64 } as const
const levels = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes).graph!.node!
  .filter((n) => n.opType === 'MatMulNBits')
  .map((n) => Number(n.attribute!.find((a) => a.name === 'accuracy_level')!.i))

describe('setMatMulNBitsAccuracy', () => {
  it('should set the attribute on every MatMulNBits node and nothing else', () => {
    const model = synthOnnxLlama({ ...SHAPE, weights: 'q4' })
    expect(new Set(levels(model.bytes))).toEqual(new Set([0]))
    const edit = setMatMulNBitsAccuracy(model.bytes, 4)
    // q, k, v, o, gate, up, down per layer, and the output head.
    expect(edit.nodes).toBe(8)
    expect(levels(edit.bytes)).toEqual(new Array(8).fill(4))
    expect(onnx.ModelProto.decode(edit.bytes).graph!.node!.length).toBe(onnx.ModelProto.decode(model.bytes).graph!.node!.length)
  })

  it('should leave a model without MatMulNBits as it is, and refuse a level ORT does not have', () => {
    const fp32 = synthOnnxLlama({ ...SHAPE, weights: 'fp32' }).bytes
    const edit = setMatMulNBitsAccuracy(fp32, 4)
    expect(edit.nodes).toBe(0)
    expect(edit.bytes).toBe(fp32)
    let err: unknown
    try { setMatMulNBitsAccuracy(fp32, 5) } catch (e) { err = e }
    expect(isKerneltuneError(err) && err.code).toBe('INVALID_INPUT')
  })
})
