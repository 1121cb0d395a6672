/**
 * @module @kerneltune/gguf
 * A streaming GGUF v3 writer and header reader, f16 conversion and Q8_0/Q4_0 block encoders and
 * decoders bit-exact with ggml, and synthetic llama models with random weights: valid files that
 * llama.cpp loads and runs at real speed, while generating meaningless text.
 *
 * @example
 * ```ts
 * import { synthLlama, ggufChunks } from '@kerneltune/gguf'
 * const model = synthLlama({ params: 60e6, quant: 'Q8_0', seed: 1 })
 * console.log(model.shape, model.layout.totalBytes)
 * for await (const chunk of ggufChunks(model.file)) sink.write(chunk)
 * // or, on Node: import { writeGgufFile } from '@kerneltune/gguf/node'
 * ```
 */
export {
  GGML_TYPES,
  GGML_TYPE_NAMES,
  LLAMA_FILE_TYPES,
  ggmlRowBytes,
  ggmlTensorBytes,
  ggmlTypeName,
  type GgmlTypeName,
} from './ggml-types.ts'
export { decodeF16, encodeF16, encodeF32, f16ToF32, f32ToF16 } from './f16.ts'
export { QK4_0, QK8_0, decodeQ4_0, decodeQ8_0, encodeQ4_0, encodeQ8_0 } from './quant.ts'
export { GGUF_VALUE_TYPES, gv, type GgufScalarType, type GgufValue } from './metadata.ts'
export {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  ggufBytes,
  ggufChunks,
  ggufLayout,
  writeGguf,
  type GgufFile,
  type GgufLayout,
  type GgufTensor,
  type TensorChunks,
} from './writer.ts'
export { ggufModelInfo, readGgufHeader, type GgufHeader, type GgufModelInfo, type GgufReadValue, type GgufTensorInfo } from './reader.ts'
export { GGML_TYPE_LAYOUTS, checkGgufTensorsInFile, tensorExtent, tensorsOutsideFile, type TensorExtent } from './tensor-extent.ts'
export {
  chooseLlamaShape,
  ffnFor,
  headDimFor,
  LLAMA_MAX_EXPERTS,
  layerParams,
  llamaActiveParamCount,
  llamaParamCount,
  parseParamCount,
  type LlamaShape,
  type ShapeRequest,
} from './llama-shape.ts'
export { BYTE_VOCAB_MIN, byteVocab, byteVocabMetadata, type ByteVocab } from './vocab.ts'
export { SYNTH_QUANTS, llamaMetadata, synthLlama, synthNote, type SynthLlama, type SynthLlamaOptions, type SynthQuant } from './synth-llama.ts'
export { SYNTH_CHUNK_VALUES, SYNTH_FILLS, type SynthFill } from './synth-tensors.ts'
export { fillUniform, hashSeed, mulberry32 } from './random.ts'
