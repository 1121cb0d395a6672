/**
 * Edits of a serialized model that a session option cannot express. ONNX Runtime reads a
 * MatMulNBits node's accuracy level from its accuracy_level attribute; the session config key
 * session.qdq_matmulnbits_accuracy_level only reaches nodes that ORT itself makes from
 * DequantizeLinear + MatMul. To measure a level on a model that already holds MatMulNBits nodes,
 * the attribute has to change in the model.
 */
import { KerneltuneError } from '@kerneltune/core'
import { onnx } from './proto.ts'

export interface AccuracyEdit {
  readonly bytes: Uint8Array
  /** MatMulNBits nodes whose attribute was set. */
  readonly nodes: number
}

/** Sets accuracy_level on every com.microsoft MatMulNBits node of the main graph (0 to 4). */
export function setMatMulNBitsAccuracy(model: Uint8Array, level: number): AccuracyEdit {
  if (!Number.isInteger(level) || level < 0 || level > 4) {
    throw new KerneltuneError('INVALID_INPUT', `MatMulNBits accuracy level must be 0 to 4 (0 unset, 1 fp32, 2 fp16, 3 bf16, 4 int8), got ${level}`)
  }
  const decoded = onnx.ModelProto.decode(model)
  let nodes = 0
  for (const node of decoded.graph?.node ?? []) {
    if (node.opType !== 'MatMulNBits' || node.domain !== 'com.microsoft') continue
    const attrs = (node.attribute ?? []).filter((a) => a.name !== 'accuracy_level')
    attrs.push(onnx.AttributeProto.create({ name: 'accuracy_level', type: onnx.AttributeProto.AttributeType.INT, i: level }))
    node.attribute = attrs
    nodes++
  }
  return { bytes: nodes === 0 ? model : onnx.ModelProto.encode(decoded).finish(), nodes }
}
