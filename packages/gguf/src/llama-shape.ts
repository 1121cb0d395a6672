/**
 * Picks a llama-family shape (hidden size, layers, heads, FFN width) for a target parameter
 * count, so `--params 60M` gives a plausible small llama and `--params 7B` something close to
 * Llama-2-7B. Every width is a multiple of 32, the Q8_0/Q4_0 block size. With `experts` the
 * FFN becomes a Mixtral-style mixture of experts and the target counts all of them (the total).
 */
import { KerneltuneError } from '@kerneltune/core'

export interface LlamaShape {
  readonly hidden: number
  readonly layers: number
  readonly heads: number
  readonly kvHeads: number
  readonly headDim: number
  readonly ffn: number
  readonly vocab: number
  readonly contextLength: number
  /** Mixture of experts (absent for a dense model): experts per layer, each `ffn` wide. */
  readonly experts?: number
  /** Experts each token is routed to. */
  readonly expertsUsed?: number
}

/** llama.cpp's LLAMA_MAX_EXPERTS (src/llama-hparams.h). */
export const LLAMA_MAX_EXPERTS = 512

const HIDDEN_LADDER = [64, 128, 192, 256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192]

/** Head size: 32 for toy widths, 64 for small ones, 128 (as in Llama 2/3) from 2048 up. */
export function headDimFor(hidden: number): number {
  return hidden <= 256 ? 32 : hidden < 2048 ? 64 : 128
}

/** Llama's SwiGLU width, about 8/3 of the hidden size, rounded up to a multiple of 64. */
export function ffnFor(hidden: number): number {
  return Math.ceil((8 * hidden) / 3 / 64) * 64
}

type LayerShape = Pick<LlamaShape, 'hidden' | 'kvHeads' | 'headDim' | 'ffn' | 'experts' | 'expertsUsed'>

/**
 * Parameters per transformer block: q, k, v, o, the two norms, and gate, up, down (one set per
 * expert plus the router for a mixture of experts). `active` counts only the experts a token is
 * routed to; the router always runs, so it counts as active.
 */
export function layerParams(s: LayerShape, active = false): number {
  const kv = s.kvHeads * s.headDim
  const attention = 2 * s.hidden * s.hidden + 2 * s.hidden * kv + 2 * s.hidden
  const experts = s.experts ?? 0
  if (experts === 0) return attention + 3 * s.hidden * s.ffn
  const routed = active ? (s.expertsUsed ?? experts) : experts
  return attention + s.hidden * experts + routed * 3 * s.hidden * s.ffn
}

/** All parameters: embeddings, untied output, final norm and the blocks. */
export function llamaParamCount(s: LlamaShape): number {
  return 2 * s.vocab * s.hidden + s.hidden + s.layers * layerParams(s)
}

/** Parameters one token touches: all of them for a dense model, the routed experts' for a MoE. */
export function llamaActiveParamCount(s: LlamaShape): number {
  return 2 * s.vocab * s.hidden + s.hidden + s.layers * layerParams(s, true)
}

export interface ShapeRequest {
  /** Target parameter count (the result lands near it, not on it). */
  readonly params: number
  readonly vocabSize?: number | undefined
  readonly contextLength?: number | undefined
  /** Fixes the hidden size instead of choosing it. */
  readonly hidden?: number | undefined
  readonly layers?: number | undefined
  /** Fixes the FFN width (per expert for a MoE) instead of 8/3 of the hidden size. */
  readonly ffn?: number | undefined
  /** Experts per layer (at least 2) for a mixture of experts; absent for a dense model. */
  readonly experts?: number | undefined
  /** Experts per token, 1 to `experts`; default 2 (as Mixtral). */
  readonly expertsUsed?: number | undefined
}

function shapeFor(hidden: number, req: ShapeRequest, vocab: number, contextLength: number, layers: number): LlamaShape {
  const headDim = headDimFor(hidden)
  const heads = hidden / headDim
  // Grouped-query attention (4 query heads per KV head) once there are enough heads, as Llama 3 does.
  const kvHeads = heads >= 8 && heads % 4 === 0 ? heads / 4 : heads
  const ffn = req.ffn ?? ffnFor(hidden)
  const moe = req.experts === undefined ? {} : { experts: req.experts, expertsUsed: req.expertsUsed ?? Math.min(2, req.experts) }
  return { hidden, layers, heads, kvHeads, headDim, ffn, vocab, contextLength, ...moe }
}

function checkRequest(req: ShapeRequest): void {
  const bad = (msg: string) => new KerneltuneError('INVALID_INPUT', msg)
  if (!(req.params > 0)) throw bad(`params must be a positive number, got ${req.params}`)
  if (req.hidden !== undefined && (req.hidden % 32 !== 0 || req.hidden % headDimFor(req.hidden) !== 0)) {
    throw bad(`hidden size ${req.hidden} must be a multiple of its head size ${headDimFor(req.hidden)} (and of 32)`)
  }
  // ffn is the row length of ffn_down, and Q8_0/Q4_0 rows are whole 32-value blocks.
  if (req.ffn !== undefined && !(Number.isInteger(req.ffn) && req.ffn > 0 && req.ffn % 32 === 0)) {
    throw bad(`ffn width ${req.ffn} must be a positive multiple of 32 (the Q8_0/Q4_0 block size)`)
  }
  if (req.experts !== undefined && !(Number.isInteger(req.experts) && req.experts >= 2 && req.experts <= LLAMA_MAX_EXPERTS)) {
    throw bad(`experts must be a whole number from 2 to ${LLAMA_MAX_EXPERTS} (llama.cpp's limit), got ${req.experts}; leave it out for a dense model`)
  }
  if (req.expertsUsed !== undefined) {
    if (req.experts === undefined) throw bad('expertsUsed needs experts (a mixture of experts); leave both out for a dense model')
    if (!(Number.isInteger(req.expertsUsed) && req.expertsUsed >= 1 && req.expertsUsed <= req.experts)) {
      throw bad(`expertsUsed must be a whole number from 1 to experts (${req.experts}), got ${req.expertsUsed}`)
    }
  }
}

export function chooseLlamaShape(req: ShapeRequest): LlamaShape {
  const vocab = req.vocabSize ?? 32000
  const ctx = req.contextLength ?? 2048
  checkRequest(req)
  const candidates = req.hidden !== undefined ? [req.hidden] : HIDDEN_LADDER
  let best: { shape: LlamaShape; score: number } | undefined
  for (const hidden of candidates) {
    const probe = shapeFor(hidden, req, vocab, ctx, 1)
    const rest = req.params - (2 * vocab * hidden + hidden)
    const layers = req.layers ?? Math.max(1, Math.round(rest / layerParams(probe)))
    const shape = { ...probe, layers }
    // Miss on the parameter count weighs most; among near misses prefer about 64-128 hidden units
    // per layer, the proportion of the Llama family (7B: 4096 / 32).
    const miss = Math.abs(Math.log(llamaParamCount(shape) / req.params))
    const aspect = hidden / layers
    const shapePenalty = Math.abs(Math.log(aspect / Math.min(128, Math.max(64, hidden / 16))))
    const score = 4 * miss + shapePenalty
    if (!best || score < best.score) best = { shape, score }
  }
  return best!.shape
}

/** Parses "60M", "1.5B", "300k" or a plain number. */
export function parseParamCount(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmMbBgG]?)\s*$/.exec(text)
  if (!m) throw new KerneltuneError('INVALID_INPUT', `cannot read "${text}" as a parameter count; write e.g. 60M, 1.5B or 300k`)
  const scale = { '': 1, k: 1e3, m: 1e6, b: 1e9, g: 1e9 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'b' | 'g']
  return Math.round(Number(m[1]) * scale)
}
