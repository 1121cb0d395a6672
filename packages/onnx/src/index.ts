/**
 * @module @kerneltune/onnx
 * Synthetic ONNX decoder models in the llama shapes @kerneltune/gguf writes as GGUF: grouped-query
 * attention (com.microsoft GroupQueryAttention with rotary embeddings), SwiGLU, RMSNorm, and fp32,
 * fp16 or 4-bit (com.microsoft MatMulNBits) weights, with past/present key-value tensors so a
 * session decodes token by token. Encoded with protobufjs through onnx-proto's onnx.proto messages.
 *
 * @example
 * ```ts
 * import { synthOnnxLlama } from '@kerneltune/onnx'
 * const model = synthOnnxLlama({ params: 2e6, vocabSize: 320, weights: 'fp16', seed: 1 })
 * const session = await InferenceSession.create(model.bytes) // onnxruntime-node
 * ```
 */
export {
  ONNX_WEIGHT_TYPES,
  Q4_BLOCK,
  onnxLlamaIo,
  synthOnnxLlama,
  type OnnxLlamaIo,
  type OnnxWeightType,
  type SynthOnnxLlama,
  type SynthOnnxLlamaOptions,
} from './llama-onnx.ts'
export { DT, onnx } from './proto.ts'
export { setMatMulNBitsAccuracy, type AccuracyEdit } from './edit.ts'
export { describeOnnxDecoder, type OnnxDecoderShape } from './describe.ts'
