/**
 * A synthetic llama model: a valid GGUF with every tensor and metadata key llama.cpp's llama
 * architecture needs, filled with seeded random weights. It loads and runs at the speed a real
 * model of the same shape and quantization would, and generates meaningless text.
 */
import { KerneltuneError } from '@kerneltune/core'
import { encodeF16, encodeF32 } from './f16.ts'
import { LLAMA_FILE_TYPES, type GgmlTypeName } from './ggml-types.ts'
import { chooseLlamaShape, llamaParamCount, type LlamaShape } from './llama-shape.ts'
import { gv, type GgufValue } from './metadata.ts'
import { encodeQ4_0, encodeQ8_0 } from './quant.ts'
import { fillUniform, hashSeed, mulberry32 } from './random.ts'
import { BYTE_VOCAB_MIN, byteVocabMetadata } from './vocab.ts'
import { ggufLayout, type GgufFile, type GgufLayout, type GgufTensor } from './writer.ts'

export const SYNTH_QUANTS = ['F16', 'Q8_0', 'Q4_0'] as const
export type SynthQuant = (typeof SYNTH_QUANTS)[number]

export interface SynthLlamaOptions {
  /** Target parameter count; the chosen shape lands near it. */
  readonly params: number
  /** Type of the 2-D weights (norms stay F32). Default F16. */
  readonly quant?: SynthQuant
  readonly seed?: number
  /** Default 32000; at least 260 (3 specials, 256 byte tokens and the space piece). */
  readonly vocabSize?: number
  readonly contextLength?: number
  readonly hidden?: number
  readonly layers?: number
  readonly name?: string
}

export interface SynthLlama {
  readonly shape: LlamaShape
  readonly paramCount: number
  readonly quant: SynthQuant
  readonly file: GgufFile
  readonly layout: GgufLayout
}

/** Values generated per chunk: about 4 MB of f32 scratch however large the tensor. */
const CHUNK_VALUES = 1 << 20

function encode(type: GgmlTypeName, values: Float32Array): Uint8Array {
  switch (type) {
    case 'F32': return encodeF32(values)
    case 'F16': return encodeF16(values)
    case 'Q8_0': return encodeQ8_0(values)
    case 'Q4_0': return encodeQ4_0(values)
  }
}

function randomTensor(name: string, dims: number[], type: GgmlTypeName, seed: number): GgufTensor {
  const rowLength = dims[0]!
  const rows = dims.slice(1).reduce((a, b) => a * b, 1)
  // Uniform in ±1/sqrt(fan-in) keeps activations bounded through the layers.
  const scale = 1 / Math.sqrt(rowLength)
  return {
    name,
    dims,
    type,
    *data() {
      const next = mulberry32(hashSeed(seed, name))
      const rowsPerChunk = Math.max(1, Math.floor(CHUNK_VALUES / rowLength))
      for (let r = 0; r < rows; r += rowsPerChunk) {
        const n = Math.min(rowsPerChunk, rows - r) * rowLength
        yield encode(type, fillUniform(new Float32Array(n), next, scale))
      }
    },
  }
}

function onesTensor(name: string, length: number): GgufTensor {
  return { name, dims: [length], type: 'F32', *data() { yield encodeF32(new Float32Array(length).fill(1)) } }
}

export function llamaMetadata(shape: LlamaShape, quant: SynthQuant, name: string, seed: number): Record<string, GgufValue> {
  return {
    'general.architecture': gv.str('llama'),
    'general.name': gv.str(name),
    'general.description': gv.str(`kerneltune synthetic llama, random weights (seed ${seed}): generates meaningless text; use it to measure speed only`),
    'general.file_type': gv.u32(LLAMA_FILE_TYPES[quant]),
    'general.quantization_version': gv.u32(2),
    'general.alignment': gv.u32(32),
    'llama.context_length': gv.u32(shape.contextLength),
    'llama.embedding_length': gv.u32(shape.hidden),
    'llama.block_count': gv.u32(shape.layers),
    'llama.feed_forward_length': gv.u32(shape.ffn),
    'llama.attention.head_count': gv.u32(shape.heads),
    'llama.attention.head_count_kv': gv.u32(shape.kvHeads),
    'llama.rope.dimension_count': gv.u32(shape.headDim),
    'llama.rope.freq_base': gv.f32(10000),
    'llama.attention.layer_norm_rms_epsilon': gv.f32(1e-5),
    'llama.vocab_size': gv.u32(shape.vocab),
    ...byteVocabMetadata(shape.vocab),
  }
}

/** Builds the model description; nothing is generated until the file's chunks are read. */
export function synthLlama(options: SynthLlamaOptions): SynthLlama {
  const quant = options.quant ?? 'F16'
  if (!SYNTH_QUANTS.includes(quant)) {
    throw new KerneltuneError('INVALID_INPUT', `quant ${String(quant)} is not supported; use one of ${SYNTH_QUANTS.join(', ')}`)
  }
  const vocabSize = options.vocabSize ?? 32000
  if (!Number.isInteger(vocabSize) || vocabSize < BYTE_VOCAB_MIN) {
    throw new KerneltuneError('INVALID_INPUT', `vocabSize must be a whole number of at least ${BYTE_VOCAB_MIN} (3 specials, 256 byte tokens and the space piece), got ${vocabSize}`)
  }
  const seed = options.seed ?? 1
  const shape = chooseLlamaShape({
    params: options.params,
    vocabSize,
    ...(options.contextLength === undefined ? {} : { contextLength: options.contextLength }),
    ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
    ...(options.layers === undefined ? {} : { layers: options.layers }),
  })
  const { hidden: h, ffn, vocab } = shape
  const kv = shape.kvHeads * shape.headDim
  const tensors: GgufTensor[] = [randomTensor('token_embd.weight', [h, vocab], quant, seed)]
  for (let i = 0; i < shape.layers; i++) {
    const p = `blk.${i}.`
    tensors.push(
      onesTensor(`${p}attn_norm.weight`, h),
      randomTensor(`${p}attn_q.weight`, [h, h], quant, seed),
      randomTensor(`${p}attn_k.weight`, [h, kv], quant, seed),
      randomTensor(`${p}attn_v.weight`, [h, kv], quant, seed),
      randomTensor(`${p}attn_output.weight`, [h, h], quant, seed),
      onesTensor(`${p}ffn_norm.weight`, h),
      randomTensor(`${p}ffn_gate.weight`, [h, ffn], quant, seed),
      randomTensor(`${p}ffn_up.weight`, [h, ffn], quant, seed),
      randomTensor(`${p}ffn_down.weight`, [ffn, h], quant, seed),
    )
  }
  tensors.push(onesTensor('output_norm.weight', h), randomTensor('output.weight', [h, vocab], quant, seed))
  const name = options.name ?? `synthetic-llama-${Math.round(llamaParamCount(shape) / 1e6)}M-${quant}`
  const file: GgufFile = { metadata: llamaMetadata(shape, quant, name, seed), tensors }
  return { shape, paramCount: llamaParamCount(shape), quant, file, layout: ggufLayout(file) }
}
