/**
 * Decode and prefill rooflines from exact block layouts. Each bound is the lesser of a memory
 * bound (bandwidth ÷ bytes moved) and a compute bound (peak FLOPS ÷ FLOPs), and says which binds
 * and why. These are peak-hardware upper bounds: measured throughput is below them.
 */
import { KerneltuneError, type HardwareSpec, type ModelSpec } from '@kerneltune/core'
import { bytesPerWeight } from './bytes.ts'

/** The model fields the roofline reads. `weightBytes` overrides paramsB × bytesPerWeight(quant). */
export type RooflineModel = Pick<ModelSpec, 'paramsB' | 'quant'> &
  Partial<Pick<ModelSpec, 'activeParamsB' | 'hiddenDim' | 'numLayers' | 'numHeads' | 'numKvHeads' | 'headDim' | 'vocabSize' | 'numExperts' | 'expertsPerToken' | 'tieEmbeddings'>> & {
    /** Exact bytes of all weights (e.g. from a GGUF file's tensor types). */
    weightBytes?: number
  }
export type RooflineHardware = Pick<HardwareSpec, 'memBwGbs' | 'fp16Tflops'> & Partial<Pick<HardwareSpec, 'name'>>

export interface RooflineOptions {
  batch?: number
  /** Decode: tokens already in each sequence's KV cache. Prefill: prompt tokens per sequence. */
  contextLength?: number
  /** Bytes per KV-cache element (2 for F16, 1 for FP8/Q8). */
  kvBytesPerElement?: number
}

export type Binding = 'memory' | 'compute'

export interface PhaseBound {
  phase: 'decode' | 'prefill'
  batch: number
  contextLength: number
  /** Aggregate tokens per second across the batch: min(memory, compute). */
  boundTps: number
  /** Per sequence (decode) or per prompt token stream (prefill). */
  perSequenceTps: number
  memoryBoundTps: number
  computeBoundTps: number
  binding: Binding
  /** Bytes moved and FLOPs done per step (decode: one token for each sequence; prefill: the whole prompt batch). */
  bytesPerStep: number
  flopsPerStep: number
  weightBytesPerStep: number
  kvBytesPerStep: number
  bytesPerWeight: number
  /** FLOPs per byte of this phase, and the hardware's ridge point (peak FLOPS ÷ bandwidth). */
  arithmeticIntensity: number
  ridgePoint: number
  /** Shapes the bound could not use (the KV or attention term is then left out). */
  missing: string[]
  explanation: string
}

const GB = 1e9

/** Peak FLOPs per byte at which a kernel stops being memory-bound. */
export function ridgePoint(hw: RooflineHardware): number {
  return (hw.fp16Tflops * 1e12) / (hw.memBwGbs * GB)
}

function headDimOf(m: RooflineModel): number | undefined {
  return m.headDim ?? (m.hiddenDim && m.numHeads ? m.hiddenDim / m.numHeads : undefined)
}

/** KV-cache bytes per token of context: 2 (K and V) × layers × KV heads × head dim × element size. */
export function kvBytesPerToken(m: RooflineModel, kvBytesPerElement = 2): number | undefined {
  const hd = headDimOf(m)
  const kvHeads = m.numKvHeads ?? m.numHeads
  if (!m.numLayers || !kvHeads || !hd) return undefined
  return 2 * m.numLayers * kvHeads * hd * kvBytesPerElement
}

/** Bytes per parameter actually stored: from weightBytes when given, else the format's layout. */
export function effectiveBytesPerParam(m: RooflineModel): number {
  return m.weightBytes !== undefined ? m.weightBytes / (m.paramsB * GB) : bytesPerWeight(m.quant)
}

/**
 * Parameters read by one forward step over `tokens` tokens. Dense: all, minus the input embedding
 * table when it is untied (only `tokens` rows of it are read). MoE: the shared part plus the
 * expected number of distinct experts hit when each token picks k of E uniformly: E·(1-(1-k/E)^t).
 */
export function paramsReadPerStep(m: RooflineModel, tokens: number): { params: number; note: string } {
  const total = m.paramsB * GB
  const embedding = !m.tieEmbeddings && m.vocabSize && m.hiddenDim ? Math.max(m.vocabSize - tokens, 0) * m.hiddenDim : 0
  const E = m.numExperts ?? 0
  const k = m.expertsPerToken ?? 0
  if (E > 1 && k > 0 && k < E && m.activeParamsB !== undefined && m.activeParamsB < m.paramsB) {
    const perExpert = (total - m.activeParamsB * GB) / (E - k)
    const shared = m.activeParamsB * GB - k * perExpert
    const hit = E * (1 - (1 - k / E) ** tokens)
    return {
      params: Math.max(shared + hit * perExpert - embedding, 0),
      note: `MoE: shared ${fmtB(shared)} + ${hit.toFixed(2)} of ${E} experts × ${fmtB(perExpert)} (top-${k}, ${tokens} token${tokens === 1 ? '' : 's'})`,
    }
  }
  return { params: total - embedding, note: embedding ? `untied input embedding (${fmtB(embedding)}) not read` : 'all weights read' }
}

const fmtB = (params: number) => `${(params / GB).toFixed(2)}B params`
const fmt = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x))

function check(m: RooflineModel, hw: RooflineHardware, batch: number, ctx: number): void {
  const bad = (what: string, v: number) => {
    throw new KerneltuneError('INVALID_INPUT', `roofline: ${what} must be a positive number, got ${v}`)
  }
  if (!(m.paramsB > 0)) bad('paramsB', m.paramsB)
  if (!(hw.memBwGbs > 0)) bad('memBwGbs', hw.memBwGbs)
  if (!(hw.fp16Tflops > 0)) bad('fp16Tflops', hw.fp16Tflops)
  if (!(batch >= 1) || !Number.isFinite(batch)) bad('batch', batch)
  if (!(ctx >= 0) || !Number.isFinite(ctx)) bad('contextLength', ctx)
}

/**
 * Decode: each step generates one token for each of `batch` sequences. It reads the weights once
 * and each sequence's KV cache at `contextLength`; it does 2 FLOPs per active parameter per token
 * plus 4·heads·headDim·layers·context for attention.
 */
export function decodeBound(m: RooflineModel, hw: RooflineHardware, opts: RooflineOptions = {}): PhaseBound {
  const batch = opts.batch ?? 1
  const ctx = opts.contextLength ?? 0
  check(m, hw, batch, ctx)
  const bpp = effectiveBytesPerParam(m)
  const read = paramsReadPerStep(m, batch)
  const weightBytes = read.params * bpp
  const kvTok = kvBytesPerToken(m, opts.kvBytesPerElement ?? 2)
  const missing: string[] = []
  if (kvTok === undefined && ctx > 0) missing.push('KV cache (needs numLayers, numKvHeads and headDim or hiddenDim/numHeads)')
  const kvBytes = (kvTok ?? 0) * ctx * batch
  const hd = headDimOf(m)
  const attnFlops = m.numLayers && m.numHeads && hd ? 4 * m.numLayers * m.numHeads * hd * ctx : 0
  if (!attnFlops && ctx > 0) missing.push('attention FLOPs (needs numLayers, numHeads, headDim)')
  const active = (m.activeParamsB ?? m.paramsB) * GB
  const flops = batch * (2 * active + attnFlops)
  return finish('decode', m, hw, batch, ctx, batch, weightBytes, kvBytes, flops, bpp, missing, read.note)
}

/**
 * Prefill: one pass over `batch` prompts of `contextLength` tokens. It reads the weights once and
 * writes the KV cache; it does 2 FLOPs per active parameter per token plus causal attention,
 * 2·heads·headDim·layers·P·(P+1) per prompt.
 */
export function prefillBound(m: RooflineModel, hw: RooflineHardware, opts: RooflineOptions = {}): PhaseBound {
  const batch = opts.batch ?? 1
  const prompt = opts.contextLength ?? 512
  check(m, hw, batch, prompt)
  if (prompt < 1) throw new KerneltuneError('INVALID_INPUT', 'roofline: prefill needs at least 1 prompt token')
  const tokens = batch * prompt
  const bpp = effectiveBytesPerParam(m)
  const read = paramsReadPerStep(m, tokens)
  const weightBytes = read.params * bpp
  const kvTok = kvBytesPerToken(m, opts.kvBytesPerElement ?? 2)
  const missing: string[] = []
  if (kvTok === undefined) missing.push('KV cache writes (needs numLayers, numKvHeads and headDim or hiddenDim/numHeads)')
  const kvBytes = (kvTok ?? 0) * tokens
  const hd = headDimOf(m)
  const attnFlops = m.numLayers && m.numHeads && hd ? 2 * m.numLayers * m.numHeads * hd * prompt * (prompt + 1) : 0
  if (!attnFlops) missing.push('attention FLOPs (needs numLayers, numHeads, headDim)')
  const active = (m.activeParamsB ?? m.paramsB) * GB
  const flops = tokens * 2 * active + batch * attnFlops
  return finish('prefill', m, hw, batch, prompt, tokens, weightBytes, kvBytes, flops, bpp, missing, read.note)
}

function finish(
  phase: 'decode' | 'prefill', m: RooflineModel, hw: RooflineHardware, batch: number, ctx: number, tokens: number,
  weightBytes: number, kvBytes: number, flops: number, bpp: number, missing: string[], readNote: string,
): PhaseBound {
  const bytes = weightBytes + kvBytes
  const memTime = bytes / (hw.memBwGbs * GB)
  const compTime = flops / (hw.fp16Tflops * 1e12)
  const memoryBoundTps = tokens / memTime
  const computeBoundTps = tokens / compTime
  const binding: Binding = memTime >= compTime ? 'memory' : 'compute'
  const boundTps = Math.min(memoryBoundTps, computeBoundTps)
  const ai = flops / bytes
  const ridge = ridgePoint(hw)
  const step = phase === 'decode' ? `each decode step (1 token × ${batch} sequence${batch === 1 ? '' : 's'}, context ${ctx})` : `the prefill pass (${batch} × ${ctx} prompt tokens)`
  const why = binding === 'memory'
    ? `arithmetic intensity ${fmt(ai)} FLOP/B is below the ridge point ${fmt(ridge)} FLOP/B, so bandwidth binds`
    : `arithmetic intensity ${fmt(ai)} FLOP/B is above the ridge point ${fmt(ridge)} FLOP/B, so compute binds`
  const explanation =
    `${binding}-bound: ${step} moves ${fmt(weightBytes / GB, 3)} GB of weights (${readNote}; ${fmt(bpp, 4)} B/param, ${m.quant})` +
    ` + ${fmt(kvBytes / GB, 3)} GB of KV cache and does ${fmt(flops / 1e12, 3)} TFLOP. ` +
    `At ${fmt(hw.memBwGbs)} GB/s memory allows ${fmt(memoryBoundTps)} tok/s; at ${fmt(hw.fp16Tflops)} TFLOPS compute allows ${fmt(computeBoundTps)} tok/s; ` +
    `${why}.` + (missing.length ? ` Left out: ${missing.join('; ')}.` : '')
  return {
    phase, batch, contextLength: ctx, boundTps, perSequenceTps: boundTps / batch,
    memoryBoundTps, computeBoundTps, binding, bytesPerStep: bytes, flopsPerStep: flops, weightBytesPerStep: weightBytes,
    kvBytesPerStep: kvBytes, bytesPerWeight: bpp, arithmeticIntensity: ai, ridgePoint: ridge, missing, explanation,
  }
}
