/**
 * A synthetic llama model: a valid GGUF with every tensor and metadata key llama.cpp's llama
 * architecture needs, filled with seeded random weights. It loads and runs at the speed a real
 * model of the same shape and quantization would, and generates meaningless text. With `experts`
 * the FFN of every block is a Mixtral-style mixture of experts (llama.cpp's llama architecture
 * loads `ffn_gate_inp` and the `ffn_{gate,up,down}_exps` tensors when `llama.expert_count` > 0).
 */
import { KerneltuneError } from '@kerneltune/core'
import { LLAMA_FILE_TYPES } from './ggml-types.ts'
import { chooseLlamaShape, llamaActiveParamCount, llamaParamCount, type LlamaShape, type ShapeRequest } from './llama-shape.ts'
import { gv, type GgufValue } from './metadata.ts'
import { SYNTH_FILLS, onesTensor, randomTensor, type SynthFill } from './synth-tensors.ts'
import { BYTE_VOCAB_MIN, byteVocabMetadata } from './vocab.ts'
import { ggufLayout, type GgufFile, type GgufLayout, type GgufTensor } from './writer.ts'

export const SYNTH_QUANTS = ['F16', 'Q8_0', 'Q4_0'] as const
export type SynthQuant = (typeof SYNTH_QUANTS)[number]

/**
 * The shape request (its vocabSize defaults to 32000 here and must be at least 260: 3 specials,
 * 256 byte tokens and the space piece), and how the weights are written.
 */
export interface SynthLlamaOptions extends ShapeRequest {
  /** Type of the 2-D weights (norms stay F32). Default F16. */
  readonly quant?: SynthQuant | undefined
  readonly seed?: number | undefined
  /** 'random' (default) generates every weight; 'tiled' repeats each tensor's first chunk (see synth-tensors.ts). */
  readonly fill?: SynthFill | undefined
  readonly name?: string
}

export interface SynthLlama {
  readonly shape: LlamaShape
  readonly paramCount: number
  /** Parameters one token touches (the routed experts only, for a MoE; paramCount when dense). */
  readonly activeParamCount: number
  readonly fill: SynthFill
  readonly quant: SynthQuant
  readonly file: GgufFile
  readonly layout: GgufLayout
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
    ...(shape.experts === undefined ? {} : {
      'llama.expert_count': gv.u32(shape.experts),
      'llama.expert_used_count': gv.u32(shape.expertsUsed ?? 2),
    }),
    ...byteVocabMetadata(shape.vocab),
  }
}

/** What a synthetic file is good for, as the CLI says it next to the file it wrote. */
export function synthNote(fill: SynthFill): string {
  return fill === 'tiled'
    ? 'random rows, tiled: each tensor repeats its first rows; this model generates meaningless text; its speed is real'
    : 'random weights: this model generates meaningless text; its speed is real'
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
  const fill = options.fill ?? 'random'
  if (!SYNTH_FILLS.includes(fill)) {
    throw new KerneltuneError('INVALID_INPUT', `fill ${String(fill)} is not supported; use one of ${SYNTH_FILLS.join(', ')}`)
  }
  const seed = options.seed ?? 1
  const shape = chooseLlamaShape({ ...options, vocabSize })
  const { hidden: h, ffn, vocab, experts } = shape
  const kv = shape.kvHeads * shape.headDim
  const weight = (name: string, dims: number[]) => randomTensor(name, dims, quant, seed, fill)
  const tensors: GgufTensor[] = [weight('token_embd.weight', [h, vocab])]
  for (let i = 0; i < shape.layers; i++) {
    const p = `blk.${i}.`
    tensors.push(
      onesTensor(`${p}attn_norm.weight`, h),
      weight(`${p}attn_q.weight`, [h, h]),
      weight(`${p}attn_k.weight`, [h, kv]),
      weight(`${p}attn_v.weight`, [h, kv]),
      weight(`${p}attn_output.weight`, [h, h]),
      onesTensor(`${p}ffn_norm.weight`, h),
      ...(experts === undefined
        ? [weight(`${p}ffn_gate.weight`, [h, ffn]), weight(`${p}ffn_up.weight`, [h, ffn]), weight(`${p}ffn_down.weight`, [ffn, h])]
        : [
          // The router stays F32, as llama.cpp's quantize leaves it: it is tiny and picks the experts.
          randomTensor(`${p}ffn_gate_inp.weight`, [h, experts], 'F32', seed, fill),
          weight(`${p}ffn_gate_exps.weight`, [h, ffn, experts]),
          weight(`${p}ffn_down_exps.weight`, [ffn, h, experts]),
          weight(`${p}ffn_up_exps.weight`, [h, ffn, experts]),
        ]),
    )
  }
  tensors.push(onesTensor('output_norm.weight', h), weight('output.weight', [h, vocab]))
  const paramCount = llamaParamCount(shape)
  const moe = experts === undefined ? '' : `-${experts}x${shape.expertsUsed}e`
  const name = options.name ?? `synthetic-llama-${Math.round(paramCount / 1e6)}M${moe}-${quant}`
  const file: GgufFile = { metadata: llamaMetadata(shape, quant, name, seed), tensors }
  return { shape, paramCount, activeParamCount: llamaActiveParamCount(shape), fill, quant, file, layout: ggufLayout(file) }
}
