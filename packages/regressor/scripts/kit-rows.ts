/**
 * Our own measurements: the GPU kit's llama-bench runs on lent NVIDIA GPUs, a current llama.cpp
 * build (de3ff815ea7d, CUDA 13), committed under bench/results/ (bench/gpu/README.md "Figures":
 * machine, build, argv, 3 repetitions each):
 * - gpu/predict-vs-measure.json: an H100 80GB HBM3 (SXM), nine synthetic llama-family models (1B
 *   and 8B dense shapes and a 6B mixture of experts, each in Q4_0, Q8_0 and F16);
 * - gpu-h200/predict-vs-measure.json: an H200 (141 GB HBM3e), the same nine and 3B, 14B and a
 *   30B mixture of 128 experts (17 files);
 * - gpu-h200/extra/: llama-bench beside that run on 1B and 8B files: prefill at micro-batches
 *   128–2048 with 512- and 2048-token prompts, decode at context depths 4k and 16k (kitExtraRows).
 * Kit rows: pp512 and tg128, every layer offloaded, micro-batch 512.
 *
 * Why synthetic models qualify as training rows: their weights are random, but llama.cpp's decode
 * and prefill time depends on the tensors' shapes and formats (bytes read, products computed, kernels
 * launched), not on the values in them; nothing data-dependent runs (no speculative decoding, every
 * token generated to the fixed tg128 length). The one place values could matter, MoE routing, sends
 * each token to 2 of 8 experts either way, so the bytes per token are the same.
 *
 * The models' shapes come from the kit's own `model synth` arguments through the same shape rule
 * (`chooseLlamaShape` of @kerneltune/gguf) that wrote the files; the parameter counts and the file
 * size are the kit's, so the bits per weight are the file's.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chooseLlamaShape, parseParamCount, type ShapeRequest } from '@kerneltune/gguf'
import { getHardwarePreset, type HardwarePreset } from '@kerneltune/features'
import type { ThroughputQueryInput } from '../src/query.ts'
import { exclude, report, shapes, spec, type DataSet } from './data-common.ts'

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
/** The kit runs trained on, repository-relative. */
export const KIT_FILES = ['bench/results/gpu/predict-vs-measure.json', 'bench/results/gpu-h200/predict-vs-measure.json'] as const
/** Manifests of llama-bench runs beside a kit run (kitExtraRows). */
export const KIT_EXTRA = ['bench/results/gpu-h200/extra/MANIFEST.json'] as const
export const kitPaths = () => ({ kit: KIT_FILES.map((f) => join(REPO, f)), kitExtra: KIT_EXTRA.map((f) => join(REPO, f)) })
const named = (path: string) => relative(REPO, resolve(path)).split('\\').join('/')

interface KitMeasured { tps: number; reps: number }
interface KitModel {
  model: { id: string; quant: string; synthArgs: string[] }
  file: { bytes: number; params: number; activeParams: number }
  decode?: { measured?: KitMeasured | null }
  prefill?: { measured?: KitMeasured | null }
  llamaBench?: { backends?: string; n_ubatch?: number; gpu_info?: string }
}
interface KitRun { device: { gpu: { name: string } }; bench: { promptTokens: number; genTokens: number }; models: KitModel[] }

/** The kit's GPU name → the hardware preset its predictions used (the run's own choice, bench/gpu/kit-plan.ts). */
const PRESETS: Record<string, string> = { 'NVIDIA H100 80GB HBM3': 'h100-sxm', 'NVIDIA H200': 'h200' }

/** The preset a kit GPU's predictions used; a GPU without one cannot give training rows. */
function presetOf(gpu: string | undefined, where: string): HardwarePreset {
  const preset = getHardwarePreset(PRESETS[gpu ?? ''] ?? '')
  if (!preset) throw new Error(`${where}: no hardware preset for the kit's GPU ${gpu}`)
  return preset
}

interface FileFacts { quant: string; params: number; activeParams: number; bytes: number }
interface ShapeFacts { layers: number; heads: number; kvHeads: number; headDim: number }

/** A synthesized file on a kit GPU as a query's model and device (bits per weight from the file's size). */
function fileQuery(f: FileFacts, s: ShapeFacts, preset: HardwarePreset): ThroughputQueryInput {
  return {
    paramsB: f.params / 1e9, ...(f.activeParams !== f.params ? { activeParamsB: f.activeParams / 1e9 } : {}),
    quant: f.quant, bitsPerWeight: (f.bytes * 8) / f.params, ...spec(preset), backend: 'cuda', batch: 1,
    ...shapes(s.layers, s.heads * s.headDim, s.kvHeads * s.headDim),
  }
}

/** `model synth` flags → the shape request they made. */
export function shapeRequestOf(args: readonly string[]): ShapeRequest {
  const flag = (name: string) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : undefined
  }
  const num = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)))
  const params = flag('--params')
  if (params === undefined) throw new Error(`kit model without --params: ${args.join(' ')}`)
  const opt = <K extends keyof ShapeRequest>(k: K, v: ShapeRequest[K] | undefined) => (v === undefined ? {} : { [k]: v })
  return {
    params: parseParamCount(params), ...opt('hidden', num('--hidden')), ...opt('layers', num('--layers')), ...opt('ffn', num('--ffn')),
    ...opt('vocabSize', num('--vocab-size')), ...opt('contextLength', num('--context-length')), ...opt('experts', num('--experts')), ...opt('expertsUsed', num('--experts-used')),
  }
}

/** The kit's rows (decode at tg/2 context, prefill of the prompt at the run's micro-batch), as training samples. */
export function kitRows(path: string, out: DataSet): void {
  if (!existsSync(path)) throw new Error(`kit results not found: ${path}`)
  const run = JSON.parse(readFileSync(path, 'utf8')) as KitRun
  const file = named(path)
  const preset = presetOf(run.device.gpu.name, file)
  const r = report(file, run.models.length * 2)
  run.models.forEach((m, i) => {
    const base = { ...fileQuery({ ...m.file, quant: m.model.quant }, chooseLlamaShape(shapeRequestOf(m.model.synthArgs)), preset), promptTokens: run.bench.promptTokens }
    for (const phase of ['decode', 'prefill'] as const) {
      const measured = m[phase]?.measured
      if (!measured || !(measured.tps > 0)) {
        exclude(r, 'no measurement')
        continue
      }
      const query: ThroughputQueryInput = phase === 'decode'
        ? { ...base, phase, contextTokens: Math.round(run.bench.genTokens / 2) }
        : { ...base, phase, contextTokens: 0, ubatch: m.llamaBench?.n_ubatch ?? 512 }
      out.samples.push({ query, measuredTps: measured.tps, group: preset.id, id: `${file}:${m.model.id}:${phase}` })
      r.used++
      r.samples++
      r.usedRows.push(2 * i + (phase === 'decode' ? 1 : 2))
    }
  })
  out.files.push(r)
}

interface SynthOut extends FileFacts { shape: ShapeFacts }
interface BenchOut { n_prompt: number; n_gen: number; n_depth?: number; n_ubatch: number; avg_ts: number; gpu_info?: string; backends?: string }
interface ExtraManifest { runs: { bench: string; synth: string }[] }

/**
 * llama-bench runs beside a kit run (a manifest naming each run's JSON and the synth output of its
 * file): prefill at other prompt lengths and micro-batches, decode at context depths. Rows that
 * repeat a kit row's workload (pp512 at micro-batch ≥ 512, tg128 at depth 0) are left out, so no
 * workload counts twice; the rest are samples of the run's GPU.
 */
export function kitExtraRows(manifestPath: string, out: DataSet): void {
  if (!existsSync(manifestPath)) throw new Error(`kit manifest not found: ${manifestPath}`)
  const dir = dirname(manifestPath)
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ExtraManifest
  for (const run of manifest.runs) {
    const rows = JSON.parse(readFileSync(join(dir, run.bench), 'utf8')) as BenchOut[]
    const synth = JSON.parse(readFileSync(join(dir, run.synth), 'utf8')) as SynthOut
    const file = named(join(dir, run.bench))
    const r = report(file, rows.length)
    rows.forEach((row, i) => {
      if (row.backends !== 'CUDA') throw new Error(`${file}: the kit's rows are CUDA runs, this one ran on ${row.backends}`)
      const preset = presetOf(row.gpu_info, file)
      const decode = row.n_gen > 0 && row.n_prompt === 0
      const depth = row.n_depth ?? 0
      if (decode ? depth === 0 : row.n_prompt === 512 && row.n_ubatch >= 512) return exclude(r, 'the kit run measured this workload')
      const query: ThroughputQueryInput = {
        ...fileQuery(synth, synth.shape, preset),
        ...(decode
          ? { phase: 'decode', promptTokens: 512, contextTokens: depth + Math.round(row.n_gen / 2) }
          : { phase: 'prefill', promptTokens: row.n_prompt, contextTokens: 0, ubatch: row.n_ubatch }),
      }
      out.samples.push({ query, measuredTps: row.avg_ts, group: preset.id, id: `${file}:${decode ? `d${depth}` : `pp${row.n_prompt}:ub${row.n_ubatch}`}` })
      r.used++
      r.samples++
      r.usedRows.push(i + 1)
    })
    out.files.push(r)
  }
}
