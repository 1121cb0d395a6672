/**
 * What a serialized decoder holds, read from its graph: the shape a roofline prediction and a
 * stored run need for a model kerneltune did not synthesize (`sweep --engine onnx --onnx FILE`).
 * It reads the layout of ONNX Runtime GenAI's exports and of synthOnnxLlama: `present.{i}.key`
 * outputs per layer, a Gather embedding, com.microsoft GroupQueryAttention and MatMulNBits.
 */
import { KerneltuneError } from '@kerneltune/core'
import { DT, onnx } from './proto.ts'

export interface OnnxDecoderShape {
  /** Weights counted as the model computes with them: a MatMulNBits weight as its K × N. */
  readonly params: number
  /** Layers: the `present.{i}.key` outputs. */
  readonly layers: number
  readonly vocab?: number
  readonly hidden?: number
  readonly heads?: number
  readonly kvHeads?: number
  /** How the linear layers are stored: 4-bit when every MatMul weight is a MatMulNBits one. */
  readonly weights: 'q4' | 'fp16' | 'fp32'
}

const FLOATS = new Set<number>([DT.float, DT.float16])

export function describeOnnxDecoder(model: Uint8Array): OnnxDecoderShape {
  let decoded: ReturnType<typeof onnx.ModelProto.decode>
  try {
    decoded = onnx.ModelProto.decode(model)
  } catch (cause) {
    throw new KerneltuneError('INVALID_FORMAT', `not an ONNX model: ${(cause as Error).message}`, { cause })
  }
  const graph = decoded.graph
  const layers = (graph?.output ?? []).filter((o) => /^present\.\d+\.key$/.test(o.name ?? '')).length
  if (!graph || layers === 0) throw new KerneltuneError('INVALID_FORMAT', 'not a decoder with a KV cache: the model has no present.{i}.key outputs')
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t]))
  const attr = (node: { attribute?: { name?: string | null; i?: unknown }[] | null }, name: string) => Number((node.attribute ?? []).find((a) => a.name === name)?.i ?? 0)
  let params = 0
  let nbits = 0
  let dense = 0
  let denseType: number | undefined
  const counted = new Set<string>()
  for (const node of graph.node ?? []) {
    if (node.opType === 'MatMulNBits') {
      // B, its scales and zero points are one K × N weight.
      params += attr(node, 'K') * attr(node, 'N')
      for (const input of node.input?.slice(1) ?? []) counted.add(input)
      nbits++
    } else if (node.opType === 'MatMul') {
      const w = inits.get(node.input?.[1] ?? '')
      if (w) {
        dense++
        denseType = w.dataType ?? undefined
      }
    }
  }
  for (const [name, t] of inits) {
    if (counted.has(name) || !FLOATS.has(t.dataType ?? 0)) continue
    params += (t.dims ?? []).reduce((a: number, d) => a * Number(d), 1)
  }
  const gqa = (graph.node ?? []).find((n) => n.opType === 'GroupQueryAttention')
  const gather = (graph.node ?? []).find((n) => n.opType === 'Gather' && (inits.get(n.input?.[0] ?? '')?.dims?.length ?? 0) === 2)
  const emb = gather ? inits.get(gather.input![0]!)!.dims!.map(Number) : undefined
  // An fp16 model casts its fp16 weights before fp32 MatMuls: the weights' type is the initializers'.
  const fp16 = [...inits.values()].some((t) => t.dataType === DT.float16 && (t.dims?.length ?? 0) === 2 && !gather?.input?.includes(t.name ?? ''))
  return {
    params,
    layers,
    ...(emb ? { vocab: emb[0]!, hidden: emb[1]! } : {}),
    ...(gqa ? { heads: attr(gqa, 'num_heads'), kvHeads: attr(gqa, 'kv_num_heads') } : {}),
    weights: nbits > 0 && dense === 0 ? 'q4' : fp16 || denseType === DT.float16 ? 'fp16' : 'fp32',
  }
}
