/**
 * Turns the public llm_throughput CSVs (../shared/data/llm_throughput, see PROVENANCE.md §A)
 * into training samples: one measured throughput with its query (model size and format, phase,
 * batch, prompt/context, the hardware's specifications from the preset table). Every row is
 * either used or counted under an exclusion reason, so the asset can say what it was trained on.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHardwarePreset } from '@kerneltune/features'
import type { ThroughputQueryInput } from '../src/query.ts'
import { LLAMA_SHAPES, REPO_MODELS, exclude, parseCsv, report, shapesOf, spec, type DataSet, type LoadOptions } from './data-common.ts'
import { kitExtraRows, kitRows } from './kit-rows.ts'
import { gpuRows2026 } from './gpu-rows-2026.ts'
import { recentBuilds } from './recent-rows.ts'

export { parseCsv, type DataSet, type FileReport, type LoadOptions } from './data-common.ts'

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
 * model's error (v2.4.0 also scored the model with them kept: the README's issue 18 record).
 */
export const PROVENANCE_FLAGGED = 'flagged anomalous in PROVENANCE.md §A1 (LLaMA 3 F16 pp on A100 SXM and L40S)'
const flagged = (row: Record<string, string>) =>
  row.model_family === 'LLaMA 3' && row.quant === 'F16' && row.test === 'pp' && ['A100 SXM 80GB', 'L40S 48GB'].includes(row.hw_base!)

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

/** Every sample of the folder, in file order (deterministic), then the kit's rows when `opts.kit` names them. */
export function loadThroughputData(dir: string, opts: LoadOptions = {}): DataSet {
  const out: DataSet = { samples: [], files: [] }
  xiongjie(dir, out, opts)
  const params = new Map<string, number>()
  for (const row of parseCsv(readFileSync(join(dir, 'llamacpp_benches_llama_bench.csv'), 'utf8'))) params.set(row.model_hf_repo!, Number.parseFloat(row.params!))
  llamaBench(dir, out)
  batchedBench(dir, out, params)
  argonne(dir, out)
  recentBuilds(dir, out, opts)
  gpuRows2026(dir, out)
  for (const f of opts.kit ?? []) kitRows(f, out)
  for (const f of opts.kitExtra ?? []) kitExtraRows(f, out)
  return out
}
