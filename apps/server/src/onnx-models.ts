/**
 * The ONNX decoder a run over ONNX Runtime (the onnxruntime backend) measures when the request
 * names a shape instead of a file: a llama of `params` synthesized on the server, the choice
 * `kerneltune sweep --engine onnx --params N --weights W --vocab-size V` makes on the command
 * line. A request cannot name an ONNX file (model-paths.ts allows GGUFs under --model-dir only),
 * so without this the dashboard could start no ORT run at all.
 */
import type { ModelSpec } from '@kerneltune/core'
import { chooseLlamaShape, llamaParamCount, parseParamCount, type LlamaShape } from '@kerneltune/gguf'
import { z } from 'zod'

export const ONNX_MODEL_WEIGHTS = ['q4', 'fp16', 'fp32'] as const
export type OnnxModelWeights = (typeof ONNX_MODEL_WEIGHTS)[number]

// ONNX models are one protobuf message, which cannot exceed 2 GiB (external data is not written).
const PROTOBUF_LIMIT = 2 ** 31
const QUANT = { q4: 'Q4_0', fp16: 'F16', fp32: 'F32' } as const

/** About the file's bytes: the embedding is fp32 or fp16 (a Gather), MatMulNBits weights 4 bits plus an fp32 scale per 32. */
export function onnxModelBytes(shape: LlamaShape, weights: OnnxModelWeights): number {
  const embedding = shape.vocab * shape.hidden
  const perWeight = { q4: 0.5 + 4 / 32, fp16: 2, fp32: 4 }[weights]
  return embedding * (weights === 'fp32' ? 4 : 2) + (llamaParamCount(shape) - embedding) * perWeight
}

/** The shape of a synthesized decoder, as `kerneltune sweep --engine onnx` takes it (--params, --weights, --vocab-size). */
export const OnnxModelRequestSchema = z.object({
  /** The parameter count, as the CLI's --params: 2M, 60M, 1B. */
  params: z.string().max(16).regex(/^\d+(\.\d+)?[kKmMbBgG]?$/, 'a parameter count such as 2M, 60M or 1B (as kerneltune sweep --params)'),
  weights: z.enum(ONNX_MODEL_WEIGHTS).default('q4'),
  vocabSize: z.number().int().min(16).max(262144).default(32000),
}).strict().superRefine((r, ctx) => {
  let shape: LlamaShape
  try {
    shape = chooseLlamaShape({ params: parseParamCount(r.params), vocabSize: r.vocabSize })
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message, path: ['params'] })
    return
  }
  const bytes = onnxModelBytes(shape, r.weights)
  if (bytes >= PROTOBUF_LIMIT) {
    ctx.addIssue({ code: 'custom', message: `a ${r.weights} llama of ${r.params} parameters is about ${(bytes / 2 ** 30).toFixed(1)} GiB, and one ONNX file holds at most 2 GiB: choose fewer parameters or q4 weights`, path: ['params'] })
  }
})
export type OnnxModelRequest = z.output<typeof OnnxModelRequestSchema>

/** The shape, the run's ModelSpec and the cache file name (the CLI's, so `kerneltune sweep` and the server share the file). */
export function onnxModelOf(r: OnnxModelRequest): { shape: LlamaShape; spec: ModelSpec; fileName: string } {
  const shape = chooseLlamaShape({ params: parseParamCount(r.params), vocabSize: r.vocabSize })
  return {
    shape,
    fileName: `llama-${r.params}-${r.weights}-v${r.vocabSize}-h${shape.hidden}-l${shape.layers}-seed1.onnx`,
    spec: {
      name: `synthetic llama ${r.params} (${r.weights})`, architecture: 'llama', paramsB: llamaParamCount(shape) / 1e9, hiddenDim: shape.hidden, intermediateDim: shape.ffn,
      numLayers: shape.layers, numHeads: shape.heads, numKvHeads: shape.kvHeads, headDim: shape.headDim, vocabSize: shape.vocab, contextLength: shape.contextLength,
      tieEmbeddings: false, quant: QUANT[r.weights],
    },
  }
}

export interface OnnxModels {
  /** The path of the decoder of this shape on this machine: synthesized on first use, then kept. */
  path(request: OnnxModelRequest): Promise<string>
}
