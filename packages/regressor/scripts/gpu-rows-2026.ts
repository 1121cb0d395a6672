/**
 * llamacpp_gpu_rows_2026.csv (PROVENANCE §A5, issue 38): llama-bench on 2025–2026 builds of GPUs the
 * other files lack (Intel Arc Pro B70 on SYCL and Vulkan, AMD Instinct MI100 and MI50/MI60, Tesla
 * V100 and P100, ...). Same columns as §A4 (recent-rows.ts). Every row is used or counted under the
 * reason it was left out; the rules follow PROVENANCE's cautions, fixed before any score with them:
 * - host-limited rows (a card on a Raspberry Pi or RISC-V host over a narrow PCIe link: the note
 *   says "should not be used" as the card's capability);
 * - multi-GPU rows (`n_devices` > 1: a layer split, one device per query);
 * - combined `pp+tg` rates (neither phase);
 * - the B70's SYCL BF16 decode values (3–5 tok/s), which PROVENANCE says look wrong;
 * - the MI300X rows of the October 2024 build (b3891), before the CDNA kernel work PROVENANCE names:
 *   neither the 2023–24 builds the model's legacy terms describe (cuBLAS prefill without MMQ) nor a
 *   current one, and the only MI300X rows, so they would set its class's current efficiency alone;
 * - hardware without a sourced preset (RTX 2070, RX 570, the unnamed Meteor Lake iGPU, the Lunar Lake Arc 140V).
 * The PR compare tables' `master` column is kept (a 2025–26 build, the micro-batch of each row read
 * from the table), as PROVENANCE describes them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHardwarePreset } from '@kerneltune/features'
import type { ThroughputQueryInput } from '../src/query.ts'
import { LLAMA_SHAPES, REPO_MODELS, exclude, parseCsv, report, shapes, shapesOf, spec, type DataSet, type Shapes } from './data-common.ts'

export const GPU_ROWS_FILE = 'llamacpp_gpu_rows_2026.csv'
export const HOST_LIMITED = 'host-limited (PROVENANCE §A5: card on a Raspberry Pi or RISC-V host, not its capability)'
export const SYCL_BF16_DECODE = 'flagged in PROVENANCE §A5 (Arc Pro B70 SYCL BF16 decode, 3–5 tok/s, "look wrong")'
export const OLD_MI300X = 'MI300X on the October 2024 build b3891 (PROVENANCE §A5: before later CDNA work; neither a legacy nor a current build)'

const BACKENDS: Record<string, ThroughputQueryInput['backend']> = { CUDA: 'cuda', Vulkan: 'vulkan', ROCm: 'rocm', SYCL: 'sycl' }

/**
 * Models of the file: total and active parameters where the row lacks them, and shapes where their
 * configs give them (as recalled; the others take the size proxies, like Qwen3.5 in recent-rows.ts).
 * MoE active parameters from the names ("A3B": 3B, "A4B": 4B; gemma "E4B": 4B effective), as the
 * A4 loader does for Qwen3.5-35B-A3B.
 */
function modelOf(model: string): { paramsB?: number; activeParamsB?: number; shapes?: Shapes } | undefined {
  if (model.startsWith('Llama-2-7B')) return { shapes: LLAMA_SHAPES['LLaMA 2|7']! }
  // llama-bench prints "llama 8B" for the Llama 3 / 3.1 8B architecture (8.03B parameters).
  if (model.startsWith('8B llama-architecture')) return { paramsB: 8.03, shapes: LLAMA_SHAPES['LLaMA 3|8']! }
  // "gemma 2B": llama.cpp names architecture LLM_ARCH_GEMMA (Gemma 1; Gemma 2–4 print gemma2/3/4) with 18
  // layers "2B" (src/llama-model.cpp, LLM_ARCH_GEMMA hparams: case 18: LLM_TYPE_2B): Gemma 2B, 2.51B
  // parameters, 8 query heads and 1 KV head of 256.
  if (model.startsWith('2B gemma-architecture')) return { paramsB: 2.51, shapes: shapes(18, 8 * 256, 256) }
  if (model.startsWith('gpt-oss-20b')) return { activeParamsB: 3.6, shapes: REPO_MODELS['ggml-org/gpt-oss-20b-GGUF']! }
  if (model.startsWith('Llama-3.2-3B')) return { shapes: shapes(28, 3072, 1024) }
  if (model.startsWith('Qwen3-14B')) return { shapes: shapes(40, 40 * 128, 8 * 128) }
  if (model.startsWith('Qwen2.5-14B')) return { shapes: shapes(48, 40 * 128, 8 * 128) }
  if (model.startsWith('gemma-3-12b')) return { shapes: shapes(48, 16 * 256, 8 * 256, { tokens: 1024, layers: 40 }) }
  if (model.startsWith('gemma-3-27b')) return { shapes: shapes(62, 32 * 128, 16 * 128, { tokens: 1024, layers: 52 }) }
  if (model.startsWith('gemma-3n-E4B') || model.startsWith('gemma-4-E4B')) return { activeParamsB: 4 }
  if (model.startsWith('gemma-4-26B-A4B')) return { activeParamsB: 4 }
  if (model.startsWith('Qwen3.6-35B-A3B') || model.startsWith('Nemotron-3-Nano-30B-A3B')) return { activeParamsB: 3 }
  if (model.startsWith('Llama-4-Scout-17B-16E')) return { activeParamsB: 17 }
  if (/^(gemma-4-31B|Qwen3\.6-27B|Qwen3\.5-9B|Ministral-3-(8|14)B)/.test(model)) return {}
  return undefined
}

/** "Q4_K_XL (unsloth UD; …)" → "Q4_K_XL"; unsloth's Q8_K_XL files are Q8_0 weights with some BF16 tensors (their size says how many). */
const quantOf = (label: string) => {
  const q = /^[A-Z0-9_]+/i.exec(label.trim())?.[0] ?? label
  return q === 'Q8_K_XL' ? 'Q8_0' : q
}

export function gpuRows2026(dir: string, out: DataSet): void {
  const rows = parseCsv(readFileSync(join(dir, GPU_ROWS_FILE), 'utf8'))
  const r = report(GPU_ROWS_FILE, rows.length)
  rows.forEach((row, i) => {
    if (row.note!.startsWith('HOST-LIMITED')) return exclude(r, HOST_LIMITED)
    if (row.n_devices !== '1') return exclude(r, 'multi-GPU layer split (n_devices > 1; one device per query)')
    if (row.test!.includes('+')) return exclude(r, 'combined prompt + generation rate (neither phase alone)')
    const prefill = row.test!.startsWith('pp')
    if (row.backend === 'SYCL' && row.quant === 'BF16' && !prefill) return exclude(r, SYCL_BF16_DECODE)
    if (row.hardware!.includes('MI300X') && row.build_number!.startsWith('3891')) return exclude(r, OLD_MI300X)
    const backend = BACKENDS[row.backend!]
    if (!backend) return exclude(r, `backend ${row.backend}`)
    const hw = findHardwarePreset(row.hardware!)
    if (!hw) return exclude(r, 'no hardware preset with sourced figures')
    const m = modelOf(row.model!)
    if (!m) return exclude(r, 'model not identified (label only, no size or file)')
    const paramsB = m.paramsB ?? Number(row.params_B)
    const size = Number.parseFloat(row.size_GiB ?? '')
    const depth = Number(row.depth) || 0
    const query: ThroughputQueryInput = {
      paramsB, ...(m.activeParamsB ? { activeParamsB: m.activeParamsB } : {}), quant: quantOf(row.quant!), ...spec(hw), backend, batch: 1,
      ...(Number.isFinite(size) && size > 0 && row.size_GiB!.trim().endsWith(String(size)) ? { bitsPerWeight: (size * 2 ** 30 * 8) / (paramsB * 1e9) } : {}),
      ...(m.shapes ? shapesOf(m.shapes) : {}),
      phase: prefill ? 'prefill' : 'decode',
      promptTokens: prefill ? Number(row.n_prompt) : 512,
      contextTokens: prefill ? depth : depth + Math.round(Number(row.n_gen) / 2),
      ...(prefill ? { ubatch: Number(row.n_ubatch) || 512 } : {}),
    }
    out.samples.push({ query, measuredTps: Number(row.tokens_per_s), group: hw.id, id: `${GPU_ROWS_FILE}:${i + 1}` })
    r.used++
    r.samples++
    r.usedRows.push(i + 1)
  })
  out.files.push(r)
}
