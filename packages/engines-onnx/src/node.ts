/**
 * @module @kerneltune/engines-onnx/node
 * The onnxruntime-node measurement backend (Node: it loads ONNX Runtime as a native addon) on the
 * CPU execution provider, applying the CPU translation of engines-onnx to a real InferenceSession.
 *
 * @example
 * ```ts
 * import { onnxruntimeBackend } from '@kerneltune/engines-onnx/node'
 * const backend = onnxruntimeBackend({ modelPath: 'tiny-q4.onnx', promptTokens: 64, genTokens: 16 })
 * const result = await backend.measure({ combo: { ort_intra_op_threads: '2', ort_matmulnbits_accuracy: '4' }, warmups: 1, repetitions: 3 })
 * console.log(result.device, result.repetitions.map((r) => r.decodeTps), result.notes)
 * ```
 */
export { installedOrtVersion, ONNXRUNTIME_BACKEND, onnxruntimeBackend, onnxruntimeRunBackend, type OnnxruntimeBackendOptions } from './adapters/onnxruntime-node.node.ts'
export { argmaxLast, compareLogits, decoderIo, type DecoderIo, type LogitsError } from './adapters/decoder.node.ts'
