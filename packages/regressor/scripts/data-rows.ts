/**
 * Turns the public llm_throughput CSVs (../shared/data/llm_throughput, see PROVENANCE.md §A)
 * into training samples: one measured throughput with its query (model size and format, phase,
 * batch, prompt/context, the hardware's specifications from the preset table). Every row is
 * either used or counted under an exclusion reason, so the asset can say what it was trained on.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseCsv as parseCsvRecords } from '@kerneltune/core'
import { findHardwarePreset, type HardwarePreset } from '@kerneltune/features'
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

const spec = (p: HardwarePreset) => ({ ...(p.tdpWatts ? { tdpWatts: p.tdpWatts } : {}), memBwGbs: p.memBwGbs, tflops: p.fp16Tflops, unifiedMemory: p.unifiedMemory ?? false, vendor: (['nvidia', 'amd', 'apple', 'intel'].includes(p.vendor) ? p.vendor : 'other') as ThroughputQueryInput['vendor'] })

/** Attention shapes of a model, as query fields: KV bytes and attention FLOPs per context token, sliding windows. */
interface Shapes { layers: number; kvBytesPerToken: number; attnFlopsPerToken: number; slidingWindow?: { tokens: number; share: number } }

/**
 * From a model config: layers, query heads × head size (attention width), KV heads × head size, and
 * the layers with a sliding window. KV bytes per context token = 2 (K, V) × KV width × layers × 2
 * bytes (F16 cache); attention FLOPs per token per context token = 4 × attention width × layers.
 */
function shapes(layers: number, attnWidth: number, kvWidth: number, window?: { tokens: number; layers: number }): Shapes {
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
const LLAMA_SHAPES: Record<string, Shapes> = {
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
const REPO_MODELS: Record<string, { quant: string; activeParamsB?: number } & Shapes> = {
  'ggml-org/GLM-4.7-Flash-GGUF': { quant: 'Q8_0', activeParamsB: 3, ...shapes(47, 20 * 544, 288) }, // "30B.A3B" in llama.cpp's model name
  'ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF': { quant: 'Q8_0', ...shapes(28, 28 * 128, 4 * 128) },
  'ggml-org/Qwen3-Coder-30B-A3B-Instruct-Q8_0-GGUF': { quant: 'Q8_0', activeParamsB: 3.3, ...shapes(48, 32 * 128, 4 * 128) }, // Qwen3 model card: 3.3B activated
  'ggml-org/gemma-3-4b-it-qat-GGUF': { quant: 'Q4_0', ...shapes(34, 8 * 256, 4 * 256, { tokens: 1024, layers: 29 }) },
  'ggml-org/gpt-oss-120b-GGUF': { quant: 'MXFP4', activeParamsB: 5.1, ...shapes(36, 64 * 64, 8 * 64, { tokens: 128, layers: 18 }) }, // OpenAI gpt-oss model card
  'ggml-org/gpt-oss-20b-GGUF': { quant: 'MXFP4', activeParamsB: 3.6, ...shapes(24, 64 * 64, 8 * 64, { tokens: 128, layers: 12 }) },
}

/**
 * The Apple CPU clusters of the "(CPU)" rows, which run llama.cpp on the CPU cores of the same
 * chips. Assumptions (recorded in the asset): bandwidth reachable from the CPU cores is half the
 * chip's (AnandTech measured about 204 of the M1 Max's 400 GB/s from its CPU cluster); FLOP rate =
 * performance cores × clock × 32 FP32 FLOPs/cycle (4 × 128-bit FMA pipes), the same
 * cores × clock × SIMD rule kerneltune uses for this machine's CPU.
 */
export const CPU_SPECS: Record<string, { memBwGbs: number; tflops: number; note: string }> = {
  'm1-max-24c': { memBwGbs: 200, tflops: 0.82, note: 'M1 Max CPU: 8 P-cores × 3.2 GHz × 32; 400/2 GB/s' },
  'm1-max': { memBwGbs: 200, tflops: 0.82, note: 'M1 Max CPU: 8 P-cores × 3.2 GHz × 32; 400/2 GB/s' },
  m3: { memBwGbs: 50, tflops: 0.52, note: 'M3 CPU: 4 P-cores × 4.05 GHz × 32; 100/2 GB/s' },
  'm3-max': { memBwGbs: 200, tflops: 1.56, note: 'M3 Max (40-core GPU) CPU: 12 P-cores × 4.05 GHz × 32; 400/2 GB/s' },
}

const shapesOf = (m: Shapes): Shapes => ({ layers: m.layers, kvBytesPerToken: m.kvBytesPerToken, attnFlopsPerToken: m.attnFlopsPerToken, ...(m.slidingWindow ? { slidingWindow: m.slidingWindow } : {}) })

function report(file: string, rows: number): FileReport {
  return { file, rows, used: 0, samples: 0, excluded: {}, usedRows: [] }
}
const exclude = (r: FileReport, why: string) => void (r.excluded[why] = (r.excluded[why] ?? 0) + 1)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * XiongjieDai llama.cpp tables. LLaMA 3: "tg N" generates N tokens from an empty context (mean
 * context N/2), "pp N" is a prompt of N. LLaMA 1/2 give no token counts: pp is taken as a 512-token
 * prompt and tg as decode at context 64 (assumptions, recorded in the asset). Their three runs are
 * reduced to the median, because single pp runs are outliers (PROVENANCE caveat).
 */
/**
 * Rows the data's PROVENANCE (§A1 caveats) names as anomalous: "Some pp values look anomalous, e.g.
 * A100 SXM and L40S F16 (pp512 about 600 on A100 SXM)", i.e. the LLaMA 3 F16 prefill rows of those two
 * labels (their prefill rate rises with the prompt length and sits below the same chip's Q4_K_M rate,
 * where every other chip is the other way round). A rule fixed by the data's collector, not by a
 * model's error; the training script also scores the model with them kept.
 */
export const PROVENANCE_FLAGGED = 'flagged anomalous in PROVENANCE.md §A1 (LLaMA 3 F16 pp on A100 SXM and L40S)'
const flagged = (row: Record<string, string>) =>
  row.model_family === 'LLaMA 3' && row.quant === 'F16' && row.test === 'pp' && ['A100 SXM 80GB', 'L40S 48GB'].includes(row.hw_base!)

export interface LoadOptions {
  /** Keep the rows PROVENANCE flags as anomalous (default false: they are excluded and counted). */
  keepFlagged?: boolean
}

function xiongjie(dir: string, out: DataSet, opts: LoadOptions): void {
  const file = 'xiongjiedai_gpu_benchmarks_llamacpp.csv'
  const rows = parseCsv(readFileSync(join(dir, file), 'utf8'))
  const r = report(file, rows.length)
  const groups = new Map<string, { idx: number[]; tps: number[]; row: Record<string, string> }>()
  rows.forEach((row, i) => {
    if (row.status !== 'ok' || !row.tokens_per_s) return exclude(r, 'OOM or no value')
    if (!opts.keepFlagged && flagged(row)) return exclude(r, PROVENANCE_FLAGGED)
    if (row.cpu_only === '1' && !CPU_SPECS[findHardwarePreset(row.hw_base!)?.id ?? '']) return exclude(r, 'CPU-only run without CPU specifications')
    if (row.n_devices !== '1') return exclude(r, 'multi-GPU (layer split)')
    const llama3 = row.model_family === 'LLaMA 3'
    if (!llama3 && row.stat === 'mean') return exclude(r, 'LLaMA 1/2 mean row (median of the runs used instead)')
    if (!findHardwarePreset(row.hw_base!)) return exclude(r, 'no hardware preset')
    const key = [row.model_family, row.hw_base, row.cpu_only, row.model_params_B, row.quant, row.test, row.n_tokens].join('|')
    const g = groups.get(key) ?? { idx: [], tps: [], row }
    g.idx.push(i + 1)
    g.tps.push(Number(row.tokens_per_s))
    groups.set(key, g)
  })
  for (const g of groups.values()) {
    const row = g.row
    const hw = findHardwarePreset(row.hw_base!)!
    const n = row.n_tokens ? Number(row.n_tokens) : undefined
    const prefill = row.test === 'pp'
    const cpu = row.cpu_only === '1' ? CPU_SPECS[hw.id]! : undefined
    const arch = LLAMA_SHAPES[`${row.model_family}|${row.model_params_B}`]
    const query: ThroughputQueryInput = {
      paramsB: Number(row.model_params_B), quant: row.quant!, ...spec(hw), batch: 1, phase: prefill ? 'prefill' : 'decode', engineEra: row.model_family === 'LLaMA 3' ? 'legacy' : 'legacy-2023', ...(arch ? shapesOf(arch) : {}),
      promptTokens: prefill ? (n ?? 512) : 512, contextTokens: prefill ? 0 : n ? Math.round(n / 2) : 64,
      ...(cpu ? { device: 'cpu' as const, memBwGbs: cpu.memBwGbs, tflops: cpu.tflops, unifiedMemory: true } : {}),
    }
    out.samples.push({ query, measuredTps: median(g.tps), group: cpu ? `${hw.id}-cpu` : hw.id, id: `${file}:${g.idx.join('+')}` })
    r.used += g.idx.length
    r.samples++
    r.usedRows.push(...g.idx)
  }
  out.files.push(r)
}

/**
 * llama-bench on DGX Spark and M2 Ultra: pp2048 / tg32 at context depths 0–32768.
 *
 * The CSV does not record the micro-batch; it is taken as 2048 (one micro-batch per pp2048), not
 * llama-bench's default 512, because of a bound the data itself gives: at 512, every micro-batch of
 * gpt-oss-120b's prompt touches all 128 experts (top-4 routing: (1 − 4⁄128)^512 ≈ 1e−7 of them
 * untouched), so pp2048 reads its 59.02 GiB four times, at least 0.93 s on GB10's 273 GB/s, at most
 * 2,200 tok/s, and the 2026 row measured 2,444. The batched-bench rows (n_ubatch 2048) agree: 2,048
 * prompt tokens in one micro-batch prefill at 2,480 tok/s on the same build, and on M2 Ultra, whose
 * bandwidth binds nowhere, llama-bench's pp2048 of each MoE model is within 6% of them too.
 */
const LLAMA_BENCH_UBATCH = 2048
function llamaBench(dir: string, out: DataSet): void {
  const file = 'llamacpp_benches_llama_bench.csv'
  const rows = parseCsv(readFileSync(join(dir, file), 'utf8'))
  const r = report(file, rows.length)
  rows.forEach((row, i) => {
    const hw = findHardwarePreset(row.hardware!)
    const m = REPO_MODELS[row.model_hf_repo!]
    if (!hw) return exclude(r, 'no hardware preset')
    if (!m) return exclude(r, 'unknown model repo')
    const n = Number(row.n_tokens)
    const d = Number(row.depth_tokens)
    const prefill = row.test === 'pp'
    const query: ThroughputQueryInput = {
      paramsB: Number.parseFloat(row.params!), activeParamsB: m.activeParamsB, quant: m.quant, ...spec(hw), batch: 1, ...shapesOf(m),
      phase: prefill ? 'prefill' : 'decode', promptTokens: prefill ? n : 512, contextTokens: prefill ? d : d + Math.round(n / 2),
      ...(prefill ? { ubatch: LLAMA_BENCH_UBATCH } : {}),
    }
    out.samples.push({ query, measuredTps: Number(row.tokens_per_s), group: hw.id, id: `${file}:${i + 1}` })
    r.used++
    r.samples++
    r.usedRows.push(i + 1)
  })
  out.files.push(r)
}

/** llama-batched-bench: B parallel sequences; S_PP is aggregate prefill, S_TG aggregate decode. */
function batchedBench(dir: string, out: DataSet, params: Map<string, number>): void {
  const file = 'llamacpp_benches_batched_bench.csv'
  const rows = parseCsv(readFileSync(join(dir, file), 'utf8'))
  const r = report(file, rows.length)
  rows.forEach((row, i) => {
    const hw = findHardwarePreset(row.hardware!)
    const m = REPO_MODELS[row.model_hf_repo!]
    const p = params.get(row.model_hf_repo!)
    if (!hw) return exclude(r, 'no hardware preset')
    if (!m || !p) return exclude(r, 'unknown model repo')
    // Every sequence of llama-batched-bench carries the same tokens, so MoE routing could be shared;
    // the physics model's 'moe' term learns how much of the distinct-routing expert traffic is paid.
    const base = { paramsB: p, activeParamsB: m.activeParamsB, quant: m.quant, ...spec(hw), ...shapesOf(m), batch: Number(row.B), ubatch: Number(row.n_ubatch) || 512, identicalSequences: true }
    const pp = Number(row.PP)
    const tg = Number(row.TG)
    const id = `${file}:${i + 1}`
    out.samples.push({ query: { ...base, phase: 'prefill', promptTokens: pp, contextTokens: 0 }, measuredTps: Number(row.S_PP_tok_s), group: hw.id, id: `${id}:pp` })
    out.samples.push({ query: { ...base, phase: 'decode', contextTokens: pp + Math.round(tg / 2) }, measuredTps: Number(row.S_TG_tok_s), group: hw.id, id: `${id}:tg` })
    r.used++
    r.samples += 2
    r.usedRows.push(i + 1)
  })
  out.files.push(r)
}

/**
 * The Argonne files are read and counted but not trained on: their throughput mixes prefill and
 * decode (input + output tokens over end-to-end latency), most rows come from vLLM, TensorRT-LLM
 * or DeepSpeed rather than llama.cpp, the llama.cpp runs do not state their weight format, and
 * the llama.cpp rows with batch > 1 are not multiplied by batch (PROVENANCE §A3).
 */
function argonne(dir: string, out: DataSet): void {
  for (const file of ['argonne_llm_inference_bench_all_results.csv', 'argonne_llm_inference_bench_quant_a100_h100.csv']) {
    const rows = parseCsv(readFileSync(join(dir, file), 'utf8'))
    const r = report(file, rows.length)
    for (const row of rows) {
      const fw = row.Framework ?? ''
      if (fw !== 'llama.cpp') exclude(r, `engine ${fw} (end-to-end throughput of a different engine)`)
      else if (row['Batch Size'] !== '1') exclude(r, 'llama.cpp batch > 1 (throughput not multiplied by batch)')
      else exclude(r, 'llama.cpp batch 1 (end-to-end, weight format not stated)')
    }
    out.files.push(r)
  }
}

/** Every sample of the folder, in file order (deterministic). */
export function loadThroughputData(dir: string, opts: LoadOptions = {}): DataSet {
  const out: DataSet = { samples: [], files: [] }
  xiongjie(dir, out, opts)
  const params = new Map<string, number>()
  for (const row of parseCsv(readFileSync(join(dir, 'llamacpp_benches_llama_bench.csv'), 'utf8'))) params.set(row.model_hf_repo!, Number.parseFloat(row.params!))
  llamaBench(dir, out)
  batchedBench(dir, out, params)
  argonne(dir, out)
  return out
}
