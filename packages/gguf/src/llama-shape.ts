/**
 * Picks a llama-family shape (hidden size, layers, heads, FFN width) for a target parameter
 * count, so `--params 60M` gives a plausible small llama and `--params 7B` something close to
 * Llama-2-7B. Every width is a multiple of 32, the Q8_0/Q4_0 block size.
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
}

const HIDDEN_LADDER = [64, 128, 192, 256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192]

/** Head size: 32 for toy widths, 64 for small ones, 128 (as in Llama 2/3) from 2048 up. */
export function headDimFor(hidden: number): number {
  return hidden <= 256 ? 32 : hidden < 2048 ? 64 : 128
}

/** Llama's SwiGLU width, about 8/3 of the hidden size, rounded up to a multiple of 64. */
export function ffnFor(hidden: number): number {
  return Math.ceil((8 * hidden) / 3 / 64) * 64
}

/** Parameters per transformer block: q, k, v, o, gate, up, down and the two norms. */
export function layerParams(s: Pick<LlamaShape, 'hidden' | 'kvHeads' | 'headDim' | 'ffn'>): number {
  const kv = s.kvHeads * s.headDim
  return 2 * s.hidden * s.hidden + 2 * s.hidden * kv + 3 * s.hidden * s.ffn + 2 * s.hidden
}

/** All parameters: embeddings, untied output, final norm and the blocks. */
export function llamaParamCount(s: LlamaShape): number {
  return 2 * s.vocab * s.hidden + s.hidden + s.layers * layerParams(s)
}

export interface ShapeRequest {
  /** Target parameter count (the result lands near it, not on it). */
  readonly params: number
  readonly vocabSize?: number
  readonly contextLength?: number
  /** Fixes the hidden size instead of choosing it. */
  readonly hidden?: number
  readonly layers?: number
}

function shapeFor(hidden: number, vocab: number, contextLength: number, layers: number): LlamaShape {
  const headDim = headDimFor(hidden)
  const heads = hidden / headDim
  // Grouped-query attention (4 query heads per KV head) once there are enough heads, as Llama 3 does.
  const kvHeads = heads >= 8 && heads % 4 === 0 ? heads / 4 : heads
  return { hidden, layers, heads, kvHeads, headDim, ffn: ffnFor(hidden), vocab, contextLength }
}

export function chooseLlamaShape(req: ShapeRequest): LlamaShape {
  const vocab = req.vocabSize ?? 32000
  const ctx = req.contextLength ?? 2048
  if (!(req.params > 0)) throw new KerneltuneError('INVALID_INPUT', `params must be a positive number, got ${req.params}`)
  if (req.hidden !== undefined && (req.hidden % 32 !== 0 || req.hidden % headDimFor(req.hidden) !== 0)) {
    throw new KerneltuneError('INVALID_INPUT', `hidden size ${req.hidden} must be a multiple of its head size ${headDimFor(req.hidden)} (and of 32)`)
  }
  const candidates = req.hidden !== undefined ? [req.hidden] : HIDDEN_LADDER
  let best: { shape: LlamaShape; score: number } | undefined
  for (const hidden of candidates) {
    const probe = shapeFor(hidden, vocab, ctx, 1)
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
