/**
 * @module @kerneltune/onnx/node
 * Writes a synthesized ONNX model to a file.
 *
 * @example
 * ```ts
 * import { synthOnnxLlama } from '@kerneltune/onnx'
 * import { writeOnnxFile } from '@kerneltune/onnx/node'
 * await writeOnnxFile('tiny.onnx', synthOnnxLlama({ params: 2e6, vocabSize: 320, weights: 'q4' }))
 * ```
 */
export { writeOnnxFile } from './adapters/write.node.ts'
