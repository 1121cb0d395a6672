/**
 * Our own measurements: the GPU kit's llama-bench run on a lent NVIDIA H100 80GB HBM3 (SXM), a
 * current llama.cpp build (de3ff815ea7d, CUDA 13), committed in bench/results/gpu/
 * predict-vs-measure.json (bench/gpu/README.md "Figures": machine, build, argv, 3 repetitions
 * each). Nine synthetic llama-family models (1B and 8B dense shapes and a 6B mixture of experts,
 * each in Q4_0, Q8_0 and F16), pp512 and tg128, every layer offloaded, micro-batch 512.
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
import { chooseLlamaShape, parseParamCount, type ShapeRequest } from '@kerneltune/gguf'
import { getHardwarePreset } from '@kerneltune/features'
import type { ThroughputQueryInput } from '../src/query.ts'
import { exclude, report, shapes, spec, type DataSet } from './data-common.ts'

export const KIT_FILE = 'bench/results/gpu/predict-vs-measure.json'

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
const PRESETS: Record<string, string> = { 'NVIDIA H100 80GB HBM3': 'h100-sxm' }

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
  const preset = getHardwarePreset(PRESETS[run.device.gpu.name] ?? '')
  if (!preset) throw new Error(`no hardware preset for the kit's GPU ${run.device.gpu.name}`)
  const r = report(KIT_FILE, run.models.length * 2)
  run.models.forEach((m, i) => {
    const s = chooseLlamaShape(shapeRequestOf(m.model.synthArgs))
    const base: ThroughputQueryInput = {
      paramsB: m.file.params / 1e9, ...(m.file.activeParams !== m.file.params ? { activeParamsB: m.file.activeParams / 1e9 } : {}),
      quant: m.model.quant, bitsPerWeight: (m.file.bytes * 8) / m.file.params, ...spec(preset), backend: 'cuda', batch: 1,
      ...shapes(s.layers, s.heads * s.headDim, s.kvHeads * s.headDim), promptTokens: run.bench.promptTokens,
    }
    for (const phase of ['decode', 'prefill'] as const) {
      const measured = m[phase]?.measured
      if (!measured || !(measured.tps > 0)) {
        exclude(r, 'no measurement')
        continue
      }
      const query: ThroughputQueryInput = phase === 'decode'
        ? { ...base, phase, contextTokens: Math.round(run.bench.genTokens / 2) }
        : { ...base, phase, contextTokens: 0, ubatch: m.llamaBench?.n_ubatch ?? 512 }
      out.samples.push({ query, measuredTps: measured.tps, group: preset.id, id: `${KIT_FILE}:${m.model.id}:${phase}` })
      r.used++
      r.samples++
      r.usedRows.push(2 * i + (phase === 'decode' ? 1 : 2))
    }
  })
  out.files.push(r)
}
