/**
 * llamacpp_recent_builds.csv (PROVENANCE §A4): llama-bench on current llama.cpp builds (2025–2026),
 * typed from the runners' console output. One measured value a row; each row is used or counted
 * under an exclusion reason, like the other files (data-rows.ts).
 *
 * What the rows need that the older files did not:
 * - the backend (CUDA, Vulkan, Metal, ROCm, CPU), as llama-bench printed it: the same RTX 4090 runs
 *   CUDA and Vulkan here;
 * - the micro-batch (`n_ubatch`): the maintainers' PR tables sweep it from 1 to 512, and prefill
 *   reads the weights once per micro-batch; an empty cell is llama-bench's default, 512;
 * - the file's average bits per weight (size × 8 ÷ parameters) wherever the size is printed: a
 *   "Q2_K" file keeps its attention and output tensors at higher formats (the Qwen3.5-35B-A3B
 *   "Q2_K" files are 2.8–3.0 bits per weight, not Q2_K's 2.625), and two files printed as "Q8_0" were
 *   a Q6_K and a Q5_K_M (PROVENANCE), whose sizes say so.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHardwarePreset } from '@kerneltune/features'
import type { ThroughputQueryInput } from '../src/query.ts'
import { LLAMA_SHAPES, REPO_MODELS, exclude, parseCsv, report, shapes, shapesOf, spec, type DataSet, type LoadOptions, type Shapes } from './data-common.ts'

/**
 * The CPUs of the file whose model the source names, with specifications from the vendors' pages
 * (recorded in the asset): bandwidth = channels × width × transfer rate; FP32 rate = the cores
 * llama-bench used (its `threads`) × clock × FP32 FLOPs per cycle (AVX2: two 256-bit FMAs, 32;
 * Cortex-A720: two 128-bit FMAs, 16; A520: 8). The Dell XPS 13 and the Radxa Dragon Q8B rows name
 * no CPU, so they have no specifications and are left out.
 */
export const RECENT_CPU_SPECS: Record<string, { id: string; vendor: 'intel' | 'other'; memBwGbs: number; tflops: number; note: string }> = {
  'Intel Core i3-1315U (Framework 12)': { id: 'intel-i3-1315u', vendor: 'intel', memBwGbs: 41.6, tflops: 0.288, note: 'Intel Core i3-1315U: 2 threads on its 2 P-cores × 4.5 GHz × 32; one DDR5-5200 SO-DIMM channel, 41.6 GB/s (Framework Laptop 12)' },
  'Intel Core i5-4278U (2014 MacBook Pro), 8GB DDR3L-1600, Linux': { id: 'intel-i5-4278u', vendor: 'intel', memBwGbs: 25.6, tflops: 0.198, note: 'Intel Core i5-4278U: 2 cores × 3.1 GHz × 32; dual-channel DDR3L-1600, 25.6 GB/s' },
  'Cix CP8180 (MetaComputing AI PC Framework 13 mainboard), Arm': { id: 'cix-cp8180', vendor: 'other', memBwGbs: 102.4, tflops: 0.39, note: 'Cix CP8180 (P1): 8 Cortex-A720 × 2.6 GHz × 16 + 4 Cortex-A520 × 1.8 GHz × 8 (12 threads); 128-bit LPDDR5-6400, 102.4 GB/s' },
}

/** llama-bench's backend column → the query's backend. */
const BACKENDS: Record<string, ThroughputQueryInput['backend']> = { CUDA: 'cuda', Vulkan: 'vulkan', 'Metal (Metal,BLAS)': 'metal', 'ROCm (HIP)': 'rocm', CPU: 'cpu' }

/** The models of the file: MoE active parameters (model cards) and shapes where known (config.json as recalled). */
function modelOf(model: string): { activeParamsB?: number; shapes?: Shapes } | undefined {
  const tables = { llama: LLAMA_SHAPES, repo: REPO_MODELS }
  if (model.startsWith('TinyLlama')) return { shapes: shapes(22, 2048, 256) }
  if (model.startsWith('Llama-3.2-3B')) return { shapes: shapes(28, 3072, 1024) }
  if (model.startsWith('Llama-3.2-1B')) return { shapes: shapes(16, 2048, 512) }
  if (model.startsWith('Llama-3(.1)-8B')) return { shapes: tables.llama['LLaMA 3|8']! }
  if (model.startsWith('Llama-2-7B')) return { shapes: tables.llama['LLaMA 2|7']! }
  if (model.startsWith('llama-2-13b')) return { shapes: tables.llama['LLaMA 2|13']! }
  if (model.startsWith('gemma-3-27b')) return { shapes: shapes(62, 32 * 128, 16 * 128, { tokens: 1024, layers: 52 }) }
  if (model.startsWith('gpt-oss-20b')) return { activeParamsB: 3.6, shapes: tables.repo['ggml-org/gpt-oss-20b-GGUF']! }
  if (model.startsWith('GLM-4.7-Flash')) return { activeParamsB: 3, shapes: tables.repo['ggml-org/GLM-4.7-Flash-GGUF']! }
  // Qwen3.5 and Qwen3-Coder-Next mix linear-attention (Gated DeltaNet) and full-attention layers;
  // their shapes were not at hand offline, so the size proxies stand in.
  if (model.startsWith('Qwen3.5-35B-A3B')) return { activeParamsB: 3 }
  if (model.startsWith('Qwen3.5-27B')) return {}
  if (model.includes('Qwen3-Coder-Next')) return { activeParamsB: 3 }
  if (model.startsWith('ERNIE-4.5-21B-A3B')) return { activeParamsB: 3 }
  return undefined
}

/** "Q2_K (mixed; label 'Q2_K - Medium')" → "Q2_K"; "Q4_K_M-class (Q4_K_L)" → "Q4_K_M". */
const quantOf = (label: string) => /^[A-Z0-9_]+/i.exec(label.trim())?.[0]?.replace(/-class$/, '') ?? label

export const RECENT_FILE = 'llamacpp_recent_builds.csv'
/** PROVENANCE §A4: "The RTX 4090 TinyLlama pp512 has a stddev of 9881: treat it as unreliable." */
export const RECENT_FLAGGED = 'flagged unreliable in PROVENANCE.md §A4 (RTX 4090 Vulkan TinyLlama pp512, stddev 9881)'
/**
 * Left out, not modelled: the layer split of two different cards (RTX 5070 Ti + 5060 Ti) runs each
 * layer on one card in turn, so its step time is a sum of two cards' times over a split the output
 * does not print (llama.cpp divides layers by free memory); the query describes one device, and one
 * pair of cards would fit a split rule on the rows it is scored on.
 */
export const MULTI_GPU = 'multi-GPU layer split (n_devices 2; one device per query, see recent-rows.ts)'
/**
 * PROVENANCE §A4: "the RTX 3060, R9700 and the 2080 Ti CUDA row sit on a Raspberry Pi CM5 host, so
 * small-model and decode figures may be host-limited" (the R9700's own note: "tg strongly
 * host-limited"). The same rule as §A5's host-limited rows (gpu-rows-2026.ts): a card on a Pi host
 * measures the host, not the card (the R9700's TinyLlama decode reached 13% of its bandwidth, the
 * RTX 4090's on a desktop host 50%), and it was the only AMD discrete decode row, so it set the
 * AMD discrete class's decode efficiency for every card of it (issue 38, third round).
 */
export const RECENT_HOST_LIMITED = 'host-limited (PROVENANCE §A4: card on a Raspberry Pi CM5 host, "small-model and decode figures may be host-limited")'

export function recentBuilds(dir: string, out: DataSet, opts: LoadOptions): void {
  const rows = parseCsv(readFileSync(join(dir, RECENT_FILE), 'utf8'))
  const r = report(RECENT_FILE, rows.length)
  rows.forEach((row, i) => {
    if (row.n_devices !== '1') return exclude(r, MULTI_GPU)
    if (row.test!.includes('+')) return exclude(r, 'combined prompt + generation rate (pp4096+tg128: neither phase alone)')
    if (/Raspberry Pi/i.test(row.host_or_system ?? '')) return exclude(r, RECENT_HOST_LIMITED)
    if (!opts.keepFlagged && row.backend === 'Vulkan' && row.hardware === 'NVIDIA GeForce RTX 4090' && row.test === 'pp512' && Number(row.stddev) > 1000) return exclude(r, RECENT_FLAGGED)
    const backend = BACKENDS[row.backend!]
    if (!backend) return exclude(r, `backend ${row.backend}`)
    const cpu = backend === 'cpu' ? RECENT_CPU_SPECS[row.hardware!] : undefined
    if (backend === 'cpu' && !cpu) return exclude(r, 'CPU not named in the source (no specifications)')
    const hw = cpu ? undefined : findHardwarePreset(row.hardware!)
    if (!cpu && !hw) return exclude(r, 'no hardware preset')
    const m = modelOf(row.model!)
    if (!m) return exclude(r, 'unknown model')
    const paramsB = Number(row.params_B)
    const size = Number.parseFloat(row.size_GiB ?? '')
    const prefill = row.test!.startsWith('pp')
    const depth = Number(row.depth) || 0
    const hardware = cpu
      ? { memBwGbs: cpu.memBwGbs, tflops: cpu.tflops, unifiedMemory: true, vendor: cpu.vendor, device: 'cpu' as const }
      : spec(hw!)
    const query: ThroughputQueryInput = {
      paramsB, ...(m.activeParamsB ? { activeParamsB: m.activeParamsB } : {}), quant: quantOf(row.quant!), ...hardware, backend, batch: 1,
      ...(Number.isFinite(size) && size > 0 ? { bitsPerWeight: (size * 2 ** 30 * 8) / (paramsB * 1e9) } : {}),
      ...(m.shapes ? shapesOf(m.shapes) : {}),
      phase: prefill ? 'prefill' : 'decode',
      promptTokens: prefill ? Number(row.n_prompt) : 512,
      contextTokens: prefill ? depth : depth + Math.round(Number(row.n_gen) / 2),
      ...(prefill ? { ubatch: Number(row.n_ubatch) || 512 } : {}),
    }
    out.samples.push({ query, measuredTps: Number(row.tokens_per_s), group: cpu ? cpu.id : hw!.id, id: `${RECENT_FILE}:${i + 1}` })
    r.used++
    r.samples++
    r.usedRows.push(i + 1)
  })
  out.files.push(r)
}
