/**
 * The physics of one llama.cpp step, as time terms. A step reads the (active, MoE-covered) weights
 * once per micro-batch, reads the KV cache, does 2 FLOPs per active parameter per token plus the
 * attention FLOPs, dequantizes each weight it reads, and pays a fixed cost per layer (kernel
 * launches, synchronisation) and per step (sampling, graph build). Each term is the time at 100%
 * of the specification (bytes ÷ bandwidth, FLOPs ÷ FLOP rate) or a unit time for the overheads; the
 * model learns one positive multiplier per term (1 ÷ efficiency), adjusted per hardware class,
 * vendor and weight format, so a prediction is a sum of physically meaningful times.
 */
import type { QuantName } from '@kerneltune/core'
import { bytesPerWeight } from '@kerneltune/roofline'
import { meanContext, moeWeightCoverage, type ThroughputQuery } from './query.ts'

export const PHYSICS_TERMS = ['mem', 'moe', 'kv', 'compute', 'dequant', 'attn', 'layer', 'step'] as const
export type PhysicsTerm = (typeof PHYSICS_TERMS)[number]

/** Unit costs of the overhead terms: 10 µs per layer and 100 µs per step at multiplier 1. */
const LAYER_UNIT_S = 1e-5
const STEP_UNIT_S = 1e-4
/** llama.cpp's default micro-batch: prefill reads the weights once per 512 tokens. */
const DEFAULT_UBATCH = 512
/** Formats read as plain floats (no dequantization term). */
const PLAIN = new Set(['F16', 'BF16', 'F32'])

/**
 * Layer count: the query's, else a proxy anchored on LLaMA (7B has 32 layers, depth grows with
 * the cube root of size), which is within 20% for the 3B–70B models of the data.
 */
export function layersOf(q: ThroughputQuery): number {
  if (q.layers !== undefined) return q.layers
  const active = q.activeParamsB ?? q.paramsB
  return Math.max(2, Math.round(32 * Math.cbrt(q.paramsB / 7) * (active < q.paramsB ? 0.9 : 1)))
}

/**
 * The class of a device, from what a query says about it: CPU, Apple GPU, NVIDIA unified memory
 * (GB10), NVIDIA HBM (datacenter, ≥ 1.5 TB/s), NVIDIA GDDR (GeForce/RTX/A40/L40S), or vendor-gpu.
 * Efficiencies are learned per class and per vendor, so an unseen chip borrows from its class.
 */
export function hardwareClass(q: ThroughputQuery): string {
  if (q.device === 'cpu') return 'cpu'
  if (q.vendor === 'apple') return 'apple-gpu'
  if (q.vendor === 'nvidia') return q.unifiedMemory ? 'nvidia-unified' : q.memBwGbs >= 1500 ? 'nvidia-hbm' : 'nvidia-gddr'
  return `${q.vendor}-gpu`
}

/** The effect keys that adjust a term's multiplier for this query (unseen keys weigh nothing). */
export function effectKeys(q: ThroughputQuery, term: PhysicsTerm): string[] {
  // One share for every device: only two chips have batched MoE rows, too few to split it by class.
  if (term === 'moe') return []
  const cls = hardwareClass(q)
  const keys = cls === 'cpu' ? ['class:cpu', `cpu-vendor:${q.vendor}`] : [`vendor:${q.vendor}`, `class:${cls}`]
  if (term === 'mem' || term === 'dequant' || term === 'compute') keys.push(`quant:${q.quant}`)
  if (q.engineEra === 'legacy') keys.push('era:legacy')
  return keys
}

export interface StepTerms {
  /** Tokens produced (decode) or consumed (prefill) by one step. */
  tokens: number
  /** Seconds at multiplier 1, in PHYSICS_TERMS order, one set per phase (the other phase's are 0). */
  phi: number[]
}

/**
 * The step's terms. KV bytes per context token and attention FLOPs per context token are proxies
 * anchored on LLaMA-3-8B (128 KiB and 4·d·layers = 0.5 MFLOP), scaled with √(active parameters):
 * the query has no head shapes, and the fitted multipliers absorb the proxy's scale.
 */
export function stepTerms(q: ThroughputQuery): StepTerms {
  const active = (q.activeParamsB ?? q.paramsB) * 1e9
  const bw = q.memBwGbs * 1e9
  const flops = q.tflops * 1e12
  const prefill = q.phase === 'prefill'
  const tokens = prefill ? q.batch * q.promptTokens : q.batch
  const ubatch = q.ubatch ?? DEFAULT_UBATCH
  const ubatches = prefill ? Math.ceil(tokens / ubatch) : 1
  // MoE: the tokens of one micro-batch touch a growing share of the experts (a prompt's tokens
  // differ even when the sequences are identical copies of each other).
  const perUbatch = prefill ? Math.min(q.identicalSequences ? q.promptTokens : tokens, ubatch) : q.batch
  const coverage = !prefill && q.identicalSequences ? 1 : moeWeightCoverage({ ...q, batch: perUbatch })
  const weights = active * coverage
  // Decode of a batch on a mixture-of-experts model: the expert bytes that distinct routing would
  // read beyond the active ones, as their own term. With identical sequences the routing could be
  // shared, but llama.cpp's expert kernels do not always exploit it; the multiplier learns how much
  // of the extra is paid (a share of 0 is shared routing, 1 is distinct).
  const extra = !prefill && q.identicalSequences ? active * (moeWeightCoverage(q) - 1) : 0
  const scale = Math.sqrt(active / 8e9)
  const ctx = meanContext(q)
  const t = {
    mem: (weights * bytesPerWeight(q.quant as QuantName) * ubatches) / bw,
    moe: (extra * bytesPerWeight(q.quant as QuantName)) / bw,
    kv: prefill ? 0 : (q.batch * ctx * 131072 * scale) / bw,
    compute: (2 * active * tokens) / flops,
    dequant: PLAIN.has(q.quant) ? 0 : (weights * ubatches) / flops,
    attn: (tokens * ctx * 524288 * scale) / flops,
    layer: layersOf(q) * ubatches * LAYER_UNIT_S,
    step: ubatches * STEP_UNIT_S,
  }
  return { tokens, phi: PHYSICS_TERMS.map((k) => t[k]) }
}

/**
 * Terms whose multipliers both phases share ("any.mem"): streaming the weights is the same hardware
 * work in decode and prefill. Fitted per phase, prefill's weight-bytes multiplier absorbed its
 * compute inefficiency on dense models (where the two terms are proportional) and then made MoE
 * prefill, whose weight bytes are far larger than its active FLOPs, 5–8× too slow.
 */
export const SHARED_TERMS: ReadonlySet<PhysicsTerm> = new Set<PhysicsTerm>(['mem'])
const phaseOf = (phase: string, term: PhysicsTerm) => (SHARED_TERMS.has(term) ? 'any' : phase)
/** Parameter name of a term's base multiplier, and of one of its effects, per phase (or "any"). */
export const baseName = (phase: string, term: PhysicsTerm) => `${phaseOf(phase, term)}.${term}`
export const effectName = (phase: string, term: PhysicsTerm, key: string) => `${phaseOf(phase, term)}.${term}|${key}`

/**
 * Prior multipliers (1 ÷ efficiency) the fit shrinks towards where the data says nothing (e.g.
 * the per-layer cost of models far smaller than any measured): 70% of bandwidth for weights, 50%
 * for KV and compute, one FLOP-equivalent per dequantized weight, 10 µs per layer, 100 µs per step.
 */
export const PRIOR: Record<PhysicsTerm, number> = { mem: 1 / 0.7, moe: 1 / 0.7, kv: 2, compute: 2, dequant: 1, attn: 2, layer: 1, step: 1 }
