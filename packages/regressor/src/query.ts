/**
 * What a learned model is asked: a model size and format, hardware specifications and a
 * workload, in plain units. Learned models read physically meaningful features derived from it
 * (logs of bandwidth, compute, size, batch, context), which is what lets them extrapolate to
 * hardware they never saw; the trueno heuristic reads the 42-value vector instead, and
 * `queryFromFeatures` / `featuresFromQuery` convert between the two.
 */
import { z } from 'zod'
import { KerneltuneError, QUANT_TYPES, normalizeQuantName, parseWith, type QuantName } from '@kerneltune/core'
import {
  DIM, QUANT_OFFSET, TRUENO_QUANT_TYPES, TRUENO_TO_GGUF, argmaxLast, denormParams, featuresBuilder, toVector,
  type TunerFeatures,
} from '@kerneltune/features'
import { bytesPerWeight, decodeBound, prefillBound } from '@kerneltune/roofline'

export const VENDOR_NAMES = ['nvidia', 'amd', 'apple', 'intel', 'other'] as const
/**
 * llama.cpp backends a query can name: the same card runs different kernels (and speeds) on CUDA
 * and on Vulkan, so the backend is part of what is predicted, not a property of the card.
 */
export const BACKEND_NAMES = ['cuda', 'metal', 'vulkan', 'rocm', 'sycl', 'cpu'] as const
export type BackendName = (typeof BACKEND_NAMES)[number]

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const ThroughputQuerySchema: z.ZodObject<{
  paramsB: z.ZodNumber
  activeParamsB: z.ZodOptional<z.ZodNumber>
  quant: z.ZodPipe<z.ZodString, z.ZodTransform<QuantName, string>>
  memBwGbs: z.ZodNumber
  tflops: z.ZodNumber
  unifiedMemory: z.ZodDefault<z.ZodBoolean>
  vendor: z.ZodDefault<z.ZodEnum<{ [V in (typeof VENDOR_NAMES)[number]]: V }>>
  backend: z.ZodOptional<z.ZodEnum<{ [B in BackendName]: B }>>
  bitsPerWeight: z.ZodOptional<z.ZodNumber>
  batch: z.ZodDefault<z.ZodNumber>
  phase: z.ZodDefault<z.ZodEnum<{ decode: 'decode'; prefill: 'prefill' }>>
  promptTokens: z.ZodDefault<z.ZodNumber>
  contextTokens: z.ZodDefault<z.ZodNumber>
  layers: z.ZodOptional<z.ZodNumber>
  device: z.ZodOptional<z.ZodEnum<{ gpu: 'gpu'; cpu: 'cpu' }>>
  ubatch: z.ZodOptional<z.ZodNumber>
  identicalSequences: z.ZodOptional<z.ZodBoolean>
  engineEra: z.ZodOptional<z.ZodEnum<{ 'legacy-2023': 'legacy-2023'; legacy: 'legacy'; current: 'current' }>>
  kvBytesPerToken: z.ZodOptional<z.ZodNumber>
  attnFlopsPerToken: z.ZodOptional<z.ZodNumber>
  slidingWindow: z.ZodOptional<z.ZodObject<{ tokens: z.ZodNumber; share: z.ZodNumber }>>
  tdpWatts: z.ZodOptional<z.ZodNumber>
  int8Tops: z.ZodOptional<z.ZodNumber>
  fp16VectorTflops: z.ZodOptional<z.ZodNumber>
  clockMhz: z.ZodOptional<z.ZodNumber>
  computeUnits: z.ZodOptional<z.ZodNumber>
}> = z.object({
  /** Total parameters, billions. */
  paramsB: z.number().positive(),
  /** Parameters read per token (mixture-of-experts), billions; default paramsB. */
  activeParamsB: z.number().positive().optional(),
  /** Weight format, any GGUF spelling (Q4_K, Q4_K_M, F16, Q8_0...). */
  quant: z.string().transform((q, ctx) => {
    const n = normalizeQuantName(q)
    if (!n) {
      ctx.addIssue({ code: 'custom', message: `unknown quantization "${q}"; accepted: ${QUANT_TYPES.join(', ')}` })
      return z.NEVER
    }
    return n
  }),
  memBwGbs: z.number().positive(),
  /** Dense FP16/BF16 TFLOPS. */
  tflops: z.number().positive(),
  unifiedMemory: z.boolean().default(false),
  vendor: z.enum(VENDOR_NAMES).default('other'),
  /**
   * The llama.cpp backend (default: the vendor's usual one, `backendOf`). 'cpu' also makes the
   * device a CPU when `device` is not given.
   */
  backend: z.enum(BACKEND_NAMES).optional(),
  /**
   * Average bits per weight of the file (its size × 8 ÷ parameters), for mixed-format files: a
   * "Q2_K" file keeps some tensors at Q4_K–Q6_K, so its bytes are not `quant`'s. Default: `quant`'s.
   */
  bitsPerWeight: z.number().positive().max(64).optional(),
  batch: z.number().int().min(1).default(1),
  phase: z.enum(['decode', 'prefill']).default('decode'),
  /** Prefill: prompt tokens per sequence (default 512). */
  promptTokens: z.number().int().min(1).default(512),
  /** Decode: tokens already in the KV cache (default 0). Prefill: tokens before the prompt. */
  contextTokens: z.number().int().min(0).default(0),
  /** Transformer layers, when known (the physics model's per-layer overhead); default: a size proxy. */
  layers: z.number().int().positive().optional(),
  /** The device kind running the model (CPU efficiencies differ from GPU ones); default gpu. */
  device: z.enum(['gpu', 'cpu']).optional(),
  /** Prefill micro-batch (llama.cpp's n_ubatch, default 512): the weights are read once per micro-batch. */
  ubatch: z.number().int().positive().optional(),
  /**
   * Every sequence of the batch carries the same tokens (as in llama-batched-bench), so a
   * mixture-of-experts model routes them to the same experts and reads only the active weights.
   */
  identicalSequences: z.boolean().optional(),
  /**
   * Age of the llama.cpp build measured: 'legacy-2023' for 2023 builds (./main, before the
   * 2024 kernel work), 'legacy' for builds up to mid-2024 (no CUDA graphs, no flash attention, cuBLAS
   * prefill of quantized weights), 'current' (default) for late-2025 builds like today's.
   */
  engineEra: z.enum(['legacy-2023', 'legacy', 'current']).optional(),
  /**
   * KV-cache bytes per context token over all layers (2 × KV heads × head size × layers × 2 bytes
   * for an F16 cache), when the model's shapes are known; default a proxy scaled from LLaMA-3-8B.
   */
  kvBytesPerToken: z.number().positive().optional(),
  /** Attention FLOPs per token per context token over all layers (4 × query heads × head size × layers); default a proxy. */
  attnFlopsPerToken: z.number().positive().optional(),
  /**
   * Sliding-window attention (gemma-3, gpt-oss): the share of the KV bytes and attention FLOPs that
   * sit in layers attending to at most `tokens` past tokens, whatever the context.
   */
  slidingWindow: z.object({ tokens: z.number().int().positive(), share: z.number().min(0).max(1) }).optional(),
  /** Board power (W): sustained tensor throughput of a power-capped card is below its datasheet peak. */
  tdpWatts: z.number().positive().optional(),
  /**
   * Dense int8 throughput (TOPS) of the units llama.cpp's quantized matrix kernels use (issue 38):
   * int8 tensor cores for MMQ on CUDA (Turing on), MFMA/WMMA on ROCm, else dot-product instructions
   * (DP4A, dot4; the Arc Pro B70's vector engines, not its XMX). Prefill of quantized weights on a
   * current GPU build runs at this rate (`kernelFlops`; per backend `int8KernelTops`: none on SYCL and
   * on Vulkan devices with matrix units, 2 × `fp16VectorTflops` on other Vulkan devices); without it, at `tflops`.
   */
  int8Tops: z.number().positive().optional(),
  /**
   * FP16 throughput (TFLOPS) of the shader ALUs, without tensor units: Vulkan's integer-dot MMQ runs at twice it
   * off NVIDIA (`int8KernelTops`), and a CUDA query that carries it without `int8Tops` is a chip without MMQ at
   * prompt batches (`dequantBlas`: P100, V100).
   */
  fp16VectorTflops: z.number().positive().optional(),
  /** Boost clock (MHz) (carried; no term uses it yet). */
  clockMhz: z.number().positive().optional(),
  /** Compute units: SMs, CUs, Xe cores (carried; no term uses it yet). */
  computeUnits: z.number().int().positive().optional(),
})
export type ThroughputQuery = z.output<typeof ThroughputQuerySchema>
export type ThroughputQueryInput = z.input<typeof ThroughputQuerySchema>

export function parseQuery(q: unknown): ThroughputQuery {
  const out = parseWith(ThroughputQuerySchema, q, 'throughput query')
  // The CPU backend runs on the CPU: its kernels and bandwidth are the CPU's.
  if (out.backend === 'cpu' && out.device === undefined) out.device = 'cpu'
  return out
}

/** Bytes per weight of a query's file: its average bits per weight when given, else its format's. */
export function weightBytesPerParam(q: Pick<ThroughputQuery, 'quant' | 'bitsPerWeight'>): number {
  return q.bitsPerWeight !== undefined ? q.bitsPerWeight / 8 : bytesPerWeight(q.quant as QuantName)
}

export interface QueryBound {
  boundTps: number
  binding: 'memory' | 'compute'
  explanation: string
}

/** Formats llama.cpp reads as plain floats (no dequantization); every other format is quantized. */
export const PLAIN_FORMATS: ReadonlySet<string> = new Set(['F16', 'BF16', 'F32'])

/**
 * On a CPU, llama.cpp can multiply quantized weights with int8 dot-product instructions (AVX-VNNI,
 * AVX512-VNNI, ARM SDOT): four int8 multiply-adds per 32-bit lane where an FP32 FMA does one, so
 * the roofline bound of a quantized model on a CPU (whose `tflops` is its FP32 FMA rate) allows 4×
 * that rate. The physics model's decode terms use the same rate (`kernelFlops`); its prefill terms
 * keep the FP32 rate, since the 2023 Apple CPU rows prefilled Q4_0 no faster per FLOP than F16 (BLAS
 * on dequantized weights), while on this repo's x86 machine one thread prefilled a 240M Q4_0 model
 * at 0.28 T ops/s, above its 0.17 TFLOPS FP32 figure, so an FP32 bound was no bound.
 */
export const CPU_INT8_SPEEDUP = 4

/** The peak rate (FLOP/s) of a query's matrix products, for its bound: `tflops`, × CPU_INT8_SPEEDUP for quantized weights on a CPU. */
export function matmulFlops(q: Pick<ThroughputQuery, 'tflops' | 'device' | 'quant'>): number {
  return q.tflops * 1e12 * (q.device === 'cpu' && !PLAIN_FORMATS.has(q.quant) ? CPU_INT8_SPEEDUP : 1)
}

/**
 * The roofline bound of a query, from `@kerneltune/roofline`: weights read once per step at the
 * format's exact bytes per weight, 2 FLOPs per active parameter per token (at `matmulFlops`). Only size and format are
 * used (no KV term), so the bound means the same thing whether or not the caller knows the shapes.
 */
export function queryBound(q: ThroughputQuery): QueryBound {
  const paramsB = q.activeParamsB ?? q.paramsB
  const model = { paramsB, quant: q.quant as QuantName, ...(q.bitsPerWeight !== undefined ? { weightBytes: paramsB * 1e9 * weightBytesPerParam(q) } : {}) }
  const hw = { memBwGbs: q.memBwGbs, fp16Tflops: matmulFlops(q) / 1e12 }
  const b = q.phase === 'prefill'
    ? prefillBound(model, hw, { batch: q.batch, contextLength: q.promptTokens })
    : decodeBound(model, hw, { batch: q.batch, contextLength: 0 })
  return { boundTps: b.boundTps, binding: b.binding, explanation: b.explanation }
}

/** Names of the engineered features, in `engineer` order. */
export const QUERY_FEATURE_NAMES = [
  'log2_mem_bw_gbs', 'log2_tflops', 'log2_ridge_flop_per_byte', 'log2_active_params_b', 'bytes_per_weight',
  'log2_batch', 'is_prefill', 'log2_tokens_per_step', 'log2_mean_context', 'unified_memory',
  'vendor_nvidia', 'vendor_amd', 'vendor_apple', 'vendor_intel', 'is_moe', 'log2_roofline_tps',
  'log2_moe_weight_coverage', 'log2_1p_kv_to_weight_bytes',
] as const

/** Mean context a token attends to: decode at context c for one token; prefill over the prompt. */
export function meanContext(q: ThroughputQuery): number {
  return q.phase === 'prefill' ? q.contextTokens + q.promptTokens / 2 : q.contextTokens
}

/**
 * Mixture-of-experts weights read per step relative to one token's: with `batch` sequences a step
 * touches a fraction 1 − (1 − active/total)^batch of the expert weights, so at batch 32 nearly the
 * whole model is read although the bound counts active parameters only. 1 for dense models.
 */
export function moeWeightCoverage(q: ThroughputQuery): number {
  const active = q.activeParamsB ?? q.paramsB
  if (active >= q.paramsB) return 1
  return (q.paramsB * (1 - (1 - active / q.paramsB) ** q.batch)) / active
}

/**
 * KV-cache bytes read per step relative to the weight bytes. The query has no layer shapes, so the
 * KV size per context token is a proxy anchored on LLaMA-3-8B (32 layers × 8 KV heads × 128 × K,V ×
 * F16 = 128 KiB) and scaled with √(active parameters); it only has to order workloads, the ridge
 * fits the effect.
 */
export function kvToWeightBytes(q: ThroughputQuery): number {
  const active = q.activeParamsB ?? q.paramsB
  const weights = active * 1e9 * weightBytesPerParam(q) * moeWeightCoverage(q)
  return (q.batch * attendedContext(q) * kvBytesPerToken(q)) / weights
}

/** KV bytes per context token: the query's, else LLaMA-3-8B's 128 KiB scaled with √(active parameters ÷ 8B). */
export function kvBytesPerToken(q: ThroughputQuery): number {
  return q.kvBytesPerToken ?? 131072 * Math.sqrt((q.activeParamsB ?? q.paramsB) / 8)
}

/** Attention FLOPs per token per context token: the query's, else LLaMA-3-8B's 4 × 4096 × 32 scaled like the KV bytes. */
export function attnFlopsPerToken(q: ThroughputQuery): number {
  return q.attnFlopsPerToken ?? 524288 * Math.sqrt((q.activeParamsB ?? q.paramsB) / 8)
}

/**
 * The mean context a token attends to once sliding windows are counted: the share of the
 * attention in windowed layers sees at most the window, the rest the whole mean context.
 */
export function attendedContext(q: ThroughputQuery): number {
  const ctx = meanContext(q)
  const w = q.slidingWindow
  return w ? (1 - w.share) * ctx + w.share * Math.min(ctx, w.tokens) : ctx
}

/** The engineered feature vector (QUERY_FEATURE_NAMES). */
export function engineer(q: ThroughputQuery, bound: number = queryBound(q).boundTps): number[] {
  const active = q.activeParamsB ?? q.paramsB
  const prefill = q.phase === 'prefill'
  return [
    Math.log2(q.memBwGbs), Math.log2(q.tflops), Math.log2((q.tflops * 1000) / q.memBwGbs), Math.log2(active),
    weightBytesPerParam(q), Math.log2(q.batch), prefill ? 1 : 0,
    Math.log2(prefill ? q.batch * q.promptTokens : q.batch), Math.log2(1 + meanContext(q)), q.unifiedMemory ? 1 : 0,
    q.vendor === 'nvidia' ? 1 : 0, q.vendor === 'amd' ? 1 : 0, q.vendor === 'apple' ? 1 : 0, q.vendor === 'intel' ? 1 : 0,
    active < q.paramsB ? 1 : 0, Math.log2(bound), Math.log2(moeWeightCoverage(q)), Math.log2(1 + kvToWeightBytes(q)),
  ]
}

/**
 * Decodes the 42-value vector into a query, as trueno's roofline does: params 10^(f0·3−1),
 * bandwidth f35·3000, TFLOPS f36·500, batch max(round(f6·64), 1), sequence 2^(f7·15), prefill f10,
 * the quant slot with ties to the last index (an all-zero one-hot is F32), zero-copy f39.
 */
export function queryFromFeatures(f: TunerFeatures | readonly number[]): ThroughputQuery {
  const v = Array.isArray(f) ? (f as readonly number[]) : toVector(f as TunerFeatures)
  if (v.length !== DIM) throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: vector has ${v.length} values, expected ${DIM}`)
  const slot = TRUENO_QUANT_TYPES[argmaxLast(v.slice(QUANT_OFFSET, QUANT_OFFSET + TRUENO_QUANT_TYPES.length))]!
  const seq = v[7]! > 0 ? Math.round(2 ** (v[7]! * 15)) : 1
  const prefill = v[10]! > 0.5
  return parseQuery({
    paramsB: denormParams(v[0]!), quant: TRUENO_TO_GGUF[slot], memBwGbs: Math.max(v[35]! * 3000, 1e-3),
    tflops: Math.max(v[36]! * 500, 1e-3), unifiedMemory: v[39]! > 0.5, batch: Math.max(Math.round(v[6]! * 64), 1),
    phase: prefill ? 'prefill' : 'decode', promptTokens: prefill ? seq : 512, contextTokens: prefill ? 0 : seq,
  })
}

/** The 42-value features of a query (for the trueno heuristic and the classifiers). */
export function featuresFromQuery(q: ThroughputQuery): TunerFeatures {
  return featuresBuilder()
    .modelParamsB(q.activeParamsB ?? q.paramsB).quantType(q.quant).gpuMemBwGbs(q.memBwGbs).gpuComputeTflops(q.tflops)
    .batchSize(q.batch).isPrefill(q.phase === 'prefill').seqLen(q.phase === 'prefill' ? q.promptTokens : Math.max(q.contextTokens, 1))
    .zeroCopy(q.unifiedMemory).build()
}
