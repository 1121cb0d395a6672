/**
 * A synthetic llama decoder as an ONNX model: the shape @kerneltune/gguf picks for a parameter
 * count (grouped-query attention, rotary embeddings, SwiGLU, RMSNorm, untied output), with seeded
 * random weights, laid out the way ONNX Runtime GenAI's exported decoders are: `input_ids`,
 * `attention_mask` and `past_key_values.{i}.key/value` in, `logits` and `present.{i}.key/value`
 * out, attention through com.microsoft GroupQueryAttention (rotary applied inside, from cos/sin
 * caches), so a session is fed its own present tensors to decode token by token.
 *
 * Weights: 'fp32'; 'fp16' (fp16 initializers cast to fp32 before each MatMul, so activations and
 * the KV cache stay fp32 as on a CPU; ORT's constant folding turns those casts into fp32 weights
 * from ORT_ENABLE_BASIC up, which is itself an effect of the setting: half the file, twice the
 * memory); 'q4' (every linear layer a com.microsoft MatMulNBits with 4-bit blocks of 32, symmetric,
 * the embedding fp16).
 * RMSNorm is written as the Pow/ReduceMean/Add/Sqrt/Div/Mul chain exporters emit, which ORT fuses
 * into SimplifiedLayerNormalization only when graph optimisation is on.
 */
import { KerneltuneError } from '@kerneltune/core'
import { chooseLlamaShape, encodeF16, encodeF32, fillUniform, hashSeed, llamaParamCount, mulberry32, type LlamaShape, type SynthLlamaOptions } from '@kerneltune/gguf'
import { DT, node, onnx, tensor, valueInfo, type NodeSpec } from './proto.ts'

export const ONNX_WEIGHT_TYPES = ['fp32', 'fp16', 'q4'] as const
export type OnnxWeightType = (typeof ONNX_WEIGHT_TYPES)[number]

/** MatMulNBits block size and bits (com.microsoft, contrib_defs: K/block_size blocks per column). */
export const Q4_BLOCK = 32

/** The GGUF synthesizer's shape options (the same shapes), with ONNX's weight types. */
export interface SynthOnnxLlamaOptions extends Pick<SynthLlamaOptions, 'params' | 'seed' | 'vocabSize' | 'hidden' | 'layers' | 'ffn'> {
  readonly weights?: OnnxWeightType
  /** Rows of the rotary cos/sin caches: the longest past + new sequence. Default 2048. */
  readonly contextLength?: number
}

export interface OnnxLlamaIo {
  readonly inputIds: 'input_ids'
  readonly attentionMask: 'attention_mask'
  readonly logits: 'logits'
  /** Per layer: the past input names and the present output names, key then value. */
  readonly past: readonly (readonly [string, string])[]
  readonly present: readonly (readonly [string, string])[]
}

export interface SynthOnnxLlama {
  readonly shape: LlamaShape
  readonly paramCount: number
  readonly weights: OnnxWeightType
  readonly io: OnnxLlamaIo
  /** The serialized ModelProto. */
  readonly bytes: Uint8Array
}

const RMS_EPS = 1e-5
const ROPE_BASE = 10000

export function onnxLlamaIo(layers: number): OnnxLlamaIo {
  const range = Array.from({ length: layers }, (_, i) => i)
  return {
    inputIds: 'input_ids',
    attentionMask: 'attention_mask',
    logits: 'logits',
    past: range.map((i) => [`past_key_values.${i}.key`, `past_key_values.${i}.value`] as const),
    present: range.map((i) => [`present.${i}.key`, `present.${i}.value`] as const),
  }
}

/** Builds nodes and initializers with stable names, so a seed always gives the same bytes. */
class GraphBuilder {
  readonly nodes: ReturnType<typeof node>[] = []
  readonly inits: ReturnType<typeof tensor>[] = []
  private n = 0
  readonly seed: number
  constructor(seed: number) {
    this.seed = seed
  }

  op(spec: Omit<NodeSpec, 'outputs'> & { outputs?: readonly string[] }, out?: string): string {
    const name = `${spec.op}_${this.n++}`
    const outputs = spec.outputs ?? [out ?? `${name}_out`]
    this.nodes.push(node({ ...spec, outputs }, name))
    return outputs[0]!
  }

  /** Uniform random values in ±scale, from a stream of their own (seed, name). */
  random(name: string, count: number, scale: number): Float32Array {
    return fillUniform(new Float32Array(count), mulberry32(hashSeed(this.seed, name)), scale)
  }

  f32(name: string, dims: number[], values: Float32Array): string {
    this.inits.push(tensor(name, DT.float, dims, encodeF32(values)))
    return name
  }

  i64(name: string, values: number[]): string {
    const raw = new Uint8Array(values.length * 8)
    const view = new DataView(raw.buffer)
    values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true))
    this.inits.push(tensor(name, DT.int64, [values.length], raw))
    return name
  }

  /** A weight of dims [rows, cols] in fp32 or fp16, returned as an fp32 value. */
  weight(name: string, dims: [number, number], half: boolean): string {
    const values = this.random(name, dims[0] * dims[1], 1 / Math.sqrt(dims[0]))
    if (!half) return this.f32(name, dims, values)
    this.inits.push(tensor(name, DT.float16, dims, encodeF16(values)))
    return this.op({ op: 'Cast', inputs: [name], attrs: { to: DT.float } })
  }
}

function rmsNorm(g: GraphBuilder, x: string, name: string, hidden: number): string {
  const w = g.f32(name, [hidden], new Float32Array(hidden).fill(1))
  const sq = g.op({ op: 'Pow', inputs: [x, 'const_two'] })
  const mean = g.op({ op: 'ReduceMean', inputs: [sq], attrs: { axes: [-1], keepdims: 1 } })
  const root = g.op({ op: 'Sqrt', inputs: [g.op({ op: 'Add', inputs: [mean, 'const_eps'] })] })
  return g.op({ op: 'Mul', inputs: [g.op({ op: 'Div', inputs: [x, root] }), w] })
}

/** x [.., K] times a [K, N] weight: MatMul for fp32/fp16, MatMulNBits for q4. */
function linear(g: GraphBuilder, x: string, name: string, k: number, n: number, weights: OnnxWeightType): string {
  if (weights !== 'q4') return g.op({ op: 'MatMul', inputs: [x, g.weight(name, [k, n], weights === 'fp16')] })
  if (k % Q4_BLOCK !== 0) throw new KerneltuneError('INVALID_INPUT', `MatMulNBits needs K (${k}) to be a multiple of the block size ${Q4_BLOCK}`)
  const blocks = k / Q4_BLOCK
  // B is [N, K/32, 16] uint8: two 4-bit values per byte, any byte a valid pair, so random bytes
  // are random weights. No zero points: the kernel then centres every value on 8.
  const packed = new Uint8Array(n * blocks * (Q4_BLOCK / 2))
  const next = mulberry32(hashSeed(g.seed, name))
  for (let i = 0; i < packed.length; i++) packed[i] = Math.floor(next() * 256)
  g.inits.push(tensor(`${name}.qweight`, DT.uint8, [n, blocks, Q4_BLOCK / 2], packed))
  // Scales so that a dequantized value (q - 8) * s spans about ±1/sqrt(K), as the float weights do.
  const scales = g.random(`${name}.scales`, n * blocks, 1 / (8 * Math.sqrt(k))).map(Math.abs)
  g.f32(`${name}.scales`, [n * blocks], scales)
  return g.op({
    op: 'MatMulNBits',
    domain: 'com.microsoft',
    inputs: [x, `${name}.qweight`, `${name}.scales`],
    attrs: { K: k, N: n, bits: 4, block_size: Q4_BLOCK, accuracy_level: 0 },
  })
}

function ropeCaches(g: GraphBuilder, rows: number, headDim: number): void {
  const half = headDim / 2
  const cos = new Float32Array(rows * half)
  const sin = new Float32Array(rows * half)
  for (let p = 0; p < rows; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p / ROPE_BASE ** ((2 * i) / headDim)
      cos[p * half + i] = Math.cos(angle)
      sin[p * half + i] = Math.sin(angle)
    }
  }
  g.f32('cos_cache', [rows, half], cos)
  g.f32('sin_cache', [rows, half], sin)
}

export function synthOnnxLlama(options: SynthOnnxLlamaOptions): SynthOnnxLlama {
  const weights = options.weights ?? 'fp32'
  if (!ONNX_WEIGHT_TYPES.includes(weights)) {
    throw new KerneltuneError('INVALID_INPUT', `weights ${String(weights)} is not supported; use one of ${ONNX_WEIGHT_TYPES.join(', ')}`)
  }
  const seed = options.seed ?? 1
  const shape = chooseLlamaShape({
    params: options.params,
    vocabSize: options.vocabSize ?? 32000,
    ...(options.contextLength === undefined ? {} : { contextLength: options.contextLength }),
    ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
    ...(options.layers === undefined ? {} : { layers: options.layers }),
    ...(options.ffn === undefined ? {} : { ffn: options.ffn }),
  })
  const { hidden: h, ffn, vocab, heads, kvHeads, headDim } = shape
  const kv = kvHeads * headDim
  const io = onnxLlamaIo(shape.layers)
  const g = new GraphBuilder(seed)
  g.f32('const_two', [], new Float32Array([2]))
  g.f32('const_eps', [], new Float32Array([RMS_EPS]))
  ropeCaches(g, shape.contextLength, headDim)

  // GroupQueryAttention takes the key lengths as seqlens_k = (attended tokens - 1) per row and the
  // total length as a scalar, both int32; GenAI's exports derive them from attention_mask too.
  const sum = g.op({ op: 'ReduceSum', inputs: [io.attentionMask, g.i64('axes_one', [1])], attrs: { keepdims: 0 } })
  const seqlens = g.op({ op: 'Cast', inputs: [g.op({ op: 'Sub', inputs: [sum, g.i64('one_i64', [1])] })], attrs: { to: DT.int32 } })
  const total = g.op({
    op: 'Cast',
    inputs: [g.op({ op: 'Gather', inputs: [g.op({ op: 'Shape', inputs: [io.attentionMask] }), 'index_one'], attrs: { axis: 0 } })],
    attrs: { to: DT.int32 },
  })
  g.inits.push(tensor('index_one', DT.int64, [], new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0])))

  // The embedding is a Gather: fp16 for the 4-bit model too (MatMulNBits quantizes MatMuls only).
  const embName = 'model.embed_tokens.weight'
  const embValues = g.random(embName, vocab * h, 1)
  let x: string
  if (weights === 'fp32') x = g.op({ op: 'Gather', inputs: [g.f32(embName, [vocab, h], embValues), io.inputIds], attrs: { axis: 0 } })
  else {
    g.inits.push(tensor(embName, DT.float16, [vocab, h], encodeF16(embValues)))
    x = g.op({ op: 'Cast', inputs: [g.op({ op: 'Gather', inputs: [embName, io.inputIds], attrs: { axis: 0 } })], attrs: { to: DT.float } })
  }

  for (let i = 0; i < shape.layers; i++) {
    const p = `model.layers.${i}.`
    const n1 = rmsNorm(g, x, `${p}input_layernorm.weight`, h)
    const q = linear(g, n1, `${p}attn.q_proj`, h, h, weights)
    const k = linear(g, n1, `${p}attn.k_proj`, h, kv, weights)
    const v = linear(g, n1, `${p}attn.v_proj`, h, kv, weights)
    const attn = g.op({
      op: 'GroupQueryAttention',
      domain: 'com.microsoft',
      inputs: [q, k, v, io.past[i]![0], io.past[i]![1], seqlens, total, 'cos_cache', 'sin_cache'],
      outputs: [`${p}attn.out`, io.present[i]![0], io.present[i]![1]],
      attrs: { num_heads: heads, kv_num_heads: kvHeads, do_rotary: 1, rotary_interleaved: 0 },
    })
    const x2 = g.op({ op: 'Add', inputs: [x, linear(g, attn, `${p}attn.o_proj`, h, h, weights)] })
    const n2 = rmsNorm(g, x2, `${p}post_attention_layernorm.weight`, h)
    const gate = linear(g, n2, `${p}mlp.gate_proj`, h, ffn, weights)
    const up = linear(g, n2, `${p}mlp.up_proj`, h, ffn, weights)
    const silu = g.op({ op: 'Mul', inputs: [gate, g.op({ op: 'Sigmoid', inputs: [gate] })] })
    const down = linear(g, g.op({ op: 'Mul', inputs: [silu, up] }), `${p}mlp.down_proj`, ffn, h, weights)
    x = g.op({ op: 'Add', inputs: [x2, down] })
  }
  const final = rmsNorm(g, x, 'model.norm.weight', h)
  const last = linear(g, final, 'lm_head', h, vocab, weights)
  g.op({ op: 'Identity', inputs: [last] }, io.logits)

  const pastDims = (len: string) => ['batch', kvHeads, len, headDim]
  const graph = onnx.GraphProto.create({
    name: 'kerneltune-synthetic-llama',
    node: g.nodes,
    initializer: g.inits,
    input: [
      valueInfo(io.inputIds, DT.int64, ['batch', 'sequence']),
      valueInfo(io.attentionMask, DT.int64, ['batch', 'total_sequence']),
      ...io.past.flatMap(([pk, pv]) => [valueInfo(pk, DT.float, pastDims('past_sequence')), valueInfo(pv, DT.float, pastDims('past_sequence'))]),
    ],
    output: [
      valueInfo(io.logits, DT.float, ['batch', 'sequence', vocab]),
      ...io.present.flatMap(([pk, pv]) => [valueInfo(pk, DT.float, pastDims('total_sequence')), valueInfo(pv, DT.float, pastDims('total_sequence'))]),
    ],
  })
  const paramCount = llamaParamCount(shape)
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'kerneltune',
    docString: `kerneltune synthetic llama, random weights (seed ${seed}, ${weights}): generates meaningless text; use it to measure speed only`,
    opsetImport: [{ domain: '', version: 17 }, { domain: 'com.microsoft', version: 1 }],
    graph,
  })
  return { shape, paramCount, weights, io, bytes: onnx.ModelProto.encode(model).finish() }
}
