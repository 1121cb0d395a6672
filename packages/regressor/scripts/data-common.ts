/**
 * What the loaders of the llm_throughput files share (data-rows.ts for the older files,
 * recent-rows.ts for llamacpp_recent_builds.csv): CSV parsing, the per-file report of used and
 * excluded rows, a preset's specifications as query fields, and the model shapes.
 */
import { parseCsv as parseCsvRecords } from '@kerneltune/core'
import type { HardwarePreset } from '@kerneltune/features'
import type { TrainingSample } from '../src/learned.ts'
import type { ThroughputQueryInput } from '../src/query.ts'

/** The rows of a CSV file as objects keyed by its header; rows with every field blank are skipped. */
export function parseCsv(text: string): Record<string, string>[] {
  const { records, problems } = parseCsvRecords(text)
  if (problems.length) throw new Error(`CSV line ${problems[0]!.line}: ${problems[0]!.message}`)
  const [header, ...body] = records.map((r) => r.cells)
  return body.filter((r) => r.some((v) => v.trim() !== '')).map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])))
}

export interface FileReport {
  file: string
  rows: number
  used: number
  samples: number
  excluded: Record<string, number>
  /** 1-based data row numbers (header excluded) that fed the samples. */
  usedRows: number[]
}

export interface DataSet {
  samples: TrainingSample[]
  files: FileReport[]
}

export const spec = (p: HardwarePreset) => ({ ...(p.tdpWatts ? { tdpWatts: p.tdpWatts } : {}), ...(p.int8Tops ? { int8Tops: p.int8Tops } : {}), ...(p.fp16VectorTflops ? { fp16VectorTflops: p.fp16VectorTflops } : {}), ...(p.computeUnits && p.clockMhz ? { computeUnits: p.computeUnits, clockMhz: p.clockMhz } : {}), memBwGbs: p.memBwGbs, tflops: p.fp16Tflops, unifiedMemory: p.unifiedMemory ?? false, vendor: (['nvidia', 'amd', 'apple', 'intel'].includes(p.vendor) ? p.vendor : 'other') as ThroughputQueryInput['vendor'] })

/** Attention shapes of a model, as query fields: KV bytes and attention FLOPs per context token, sliding windows. */
export interface Shapes { layers: number; kvBytesPerToken: number; attnFlopsPerToken: number; slidingWindow?: { tokens: number; share: number } }

/**
 * From a model config: layers, query heads × head size (attention width), KV heads × head size, and
 * the layers with a sliding window. KV bytes per context token = 2 (K, V) × KV width × layers × 2
 * bytes (F16 cache); attention FLOPs per token per context token = 4 × attention width × layers.
 */
export function shapes(layers: number, attnWidth: number, kvWidth: number, window?: { tokens: number; layers: number }): Shapes {
  return {
    layers, kvBytesPerToken: 2 * kvWidth * layers * 2, attnFlopsPerToken: 4 * attnWidth * layers,
    ...(window ? { slidingWindow: { tokens: window.tokens, share: window.layers / layers } } : {}),
  }
}

/**
 * LLaMA families of the XiongjieDai tables (LLaMA and LLaMA 2 papers, LLaMA 3 model card): layers,
 * hidden size, KV heads × 128. LLaMA 1 and LLaMA 2 7B/13B have no grouped-query attention, so their
 * KV cache per token is 4–6× what a LLaMA-3-anchored proxy says; LLaMA 2 70B and LLaMA 3 have 8 KV heads.
 */
export const LLAMA_SHAPES: Record<string, Shapes> = {
  'LLaMA|7': shapes(32, 4096, 4096), 'LLaMA|13': shapes(40, 5120, 5120), 'LLaMA|30': shapes(60, 6656, 6656), 'LLaMA|65': shapes(80, 8192, 8192),
  'LLaMA 2|7': shapes(32, 4096, 4096), 'LLaMA 2|13': shapes(40, 5120, 5120), 'LLaMA 2|70': shapes(80, 8192, 1024),
  'LLaMA 3|8': shapes(32, 4096, 1024), 'LLaMA 3|70': shapes(80, 8192, 1024),
}

/**
 * Models of the llama.cpp benches: format, parameters read per token (model cards) and shapes from
 * each model's config.json (as recalled; not re-checked offline): layers (the per-layer overhead;
 * gpt-oss-120b has 36 where the size proxy says 74), attention and KV widths, sliding windows
 * (gemma-3: 5 of every 6 layers see 1024 tokens; gpt-oss: every other layer sees 128).
 * GLM-4.7-Flash is taken as DeepSeek-style multi-head latent attention as llama.cpp runs it (20
 * heads over a 512 + 64 latent cached per layer: K width 576, V width 512, so 20 × 544 per head pair).
 */
export const REPO_MODELS: Record<string, { quant: string; activeParamsB?: number } & Shapes> = {
  'ggml-org/GLM-4.7-Flash-GGUF': { quant: 'Q8_0', activeParamsB: 3, ...shapes(47, 20 * 544, 288) }, // "30B.A3B" in llama.cpp's model name
  'ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF': { quant: 'Q8_0', ...shapes(28, 28 * 128, 4 * 128) },
  'ggml-org/Qwen3-Coder-30B-A3B-Instruct-Q8_0-GGUF': { quant: 'Q8_0', activeParamsB: 3.3, ...shapes(48, 32 * 128, 4 * 128) }, // Qwen3 model card: 3.3B activated
  'ggml-org/gemma-3-4b-it-qat-GGUF': { quant: 'Q4_0', ...shapes(34, 8 * 256, 4 * 256, { tokens: 1024, layers: 29 }) },
  'ggml-org/gpt-oss-120b-GGUF': { quant: 'MXFP4', activeParamsB: 5.1, ...shapes(36, 64 * 64, 8 * 64, { tokens: 128, layers: 18 }) }, // OpenAI gpt-oss model card
  'ggml-org/gpt-oss-20b-GGUF': { quant: 'MXFP4', activeParamsB: 3.6, ...shapes(24, 64 * 64, 8 * 64, { tokens: 128, layers: 12 }) },
}

export const shapesOf = (m: Shapes): Shapes => ({ layers: m.layers, kvBytesPerToken: m.kvBytesPerToken, attnFlopsPerToken: m.attnFlopsPerToken, ...(m.slidingWindow ? { slidingWindow: m.slidingWindow } : {}) })

export function report(file: string, rows: number): FileReport {
  return { file, rows, used: 0, samples: 0, excluded: {}, usedRows: [] }
}
export const exclude = (r: FileReport, why: string) => void (r.excluded[why] = (r.excluded[why] ?? 0) + 1)
export interface LoadOptions {
  /** Keep the rows PROVENANCE flags as anomalous (default false: they are excluded and counted). */
  keepFlagged?: boolean
  /** Our own GPU kit results (predict-vs-measure.json files under bench/results/) to add as training rows (kit-rows.ts). */
  kit?: readonly string[]
  /** Manifests of llama-bench runs beside a kit run (kit-rows.ts kitExtraRows). */
  kitExtra?: readonly string[]
}

