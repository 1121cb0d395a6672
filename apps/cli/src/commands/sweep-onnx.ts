/**
 * `kerneltune sweep --engine onnx`: a Tier 1 sweep over ONNX Runtime's CPU execution provider
 * (onnxruntime-node, in-process), through the same stored run and tuner as the llama.cpp sweep
 * (sweep-run.ts): the plan is ORT's CPU dimensions enumerated through the catalog, each
 * combination a real InferenceSession, the interleaved design by default. The model is --onnx
 * FILE, or a llama of --params synthesized once into the cache folder. The roofline bound of the
 * model on the detected hardware is printed beside the measured defaults, labelled a prediction.
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { Combo, HardwareSpec, ModelSpec } from '@kerneltune/core'
import { ORT_CPU_DEFAULTS, ORT_CPU_DIMENSIONS, onnxCpuEngine } from '@kerneltune/engines-onnx'
import { SWEEP_GATE_DEFAULTS, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import { chooseLlamaShape, llamaParamCount, parseParamCount } from '@kerneltune/gguf'
import { decodeBound, prefillBound, type PhaseBound } from '@kerneltune/roofline'
import type { Store } from '@kerneltune/store'
import { usageError } from '../cli/args.ts'
import type { CommandContext, Io } from '../cli/command.ts'
import { fmt, progressBar, table } from '../cli/output.ts'
import type { SWEEP_FLAGS } from './sweep-flags.ts'
import { planThroughCatalog, SWEEP_DEFAULTS, type SweepPlan } from './sweep-plan.ts'
import { sweepSpecOf } from './sweep-resume.ts'
import { sweepAsRun, type SweepSession } from './sweep-run.ts'

type Mode = 'quick' | 'standard'
export type OnnxSpace = Readonly<Record<string, readonly string[]>>

/** A combination less the values ONNX Runtime uses when the option is not set. */
export function onnxWithoutDefaults(combo: Combo): Combo {
  const defaults: Readonly<Record<string, string>> = ORT_CPU_DEFAULTS
  return Object.fromEntries(Object.entries(combo).filter(([k, v]) => defaults[k] !== v))
}

const label = (c: Combo) => Object.entries(onnxWithoutDefaults(c)).map(([k, v]) => `${k.replace(/^ort_/, '')}=${v}`).join(' ') || '(ORT defaults)'

/**
 * The swept space: quick crosses intra-op threads (up to the machine's cores) with the
 * MatMulNBits accuracy level, the two settings that move a 4-bit decoder most on a CPU;
 * standard adds the execution mode and thread spinning. --space replaces whole dimensions.
 */
export function onnxSweepSpace(mode: Mode, logicalCores: number, override: OnnxSpace = {}): OnnxSpace {
  const threads = ['auto', ...['1', '2', '4', '8', '16', '32'].filter((t) => Number(t) <= Math.max(1, logicalCores))]
  const base: Record<string, readonly string[]> = { ort_intra_op_threads: threads, ort_matmulnbits_accuracy: ['model', '4'] }
  if (mode === 'standard') Object.assign(base, { ort_execution_mode: ['sequential', 'parallel'], ort_intra_op_spinning: ['on', 'off'] })
  const space = { ...base, ...override }
  for (const [id, values] of Object.entries(space)) {
    const dim = ORT_CPU_DIMENSIONS.find((d) => d.id === id)
    if (!dim) throw usageError(`ONNX Runtime's CPU execution provider has no dimension ${id}; known: ${ORT_CPU_DIMENSIONS.map((d) => d.id).join(', ')}`)
    const bad = values.filter((v) => !dim.values.some((x) => x.id === v))
    if (values.length === 0 || bad.length) throw usageError(`${id}: ${values.length === 0 ? 'needs at least one value' : `unknown values ${bad.join(', ')}`}; known: ${dim.values.map((v) => v.id).join(', ')}`)
  }
  return space
}

/** The space enumerated through the catalog as the onnx engine's extension, less the ORT defaults (the baseline). */
export function planOnnxSweep(mode: Mode, hardware: HardwareSpec, logicalCores: number, override?: OnnxSpace): SweepPlan {
  const space = onnxSweepSpace(mode, logicalCores, override)
  const dimensions = ORT_CPU_DIMENSIONS.filter((d) => space[d.id]).map((d) => ({ ...d, quickValues: [...space[d.id]!] }))
  return planThroughCatalog(mode, space, { dimensions, rules: [], coreDimensions: [] }, onnxWithoutDefaults, hardware, 'onnx')
}

/** Where synthesized models are kept: $KERNELTUNE_CACHE_DIR, else $XDG_CACHE_HOME/kerneltune, else ~/.cache/kerneltune; then onnx/. */
export function onnxCacheDir(env: Io['env']): string {
  const root = env.KERNELTUNE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kerneltune')
  return join(root, 'onnx')
}

interface OnnxModel { path: string; bytes: number; model?: ModelSpec; synthesized: boolean }

/** --onnx FILE, or the llama of --params synthesized (once: the file is kept in the cache folder by shape, weights and seed). */
async function resolveOnnxModel(io: Io, f: CommandContext<typeof SWEEP_FLAGS>['flags']): Promise<OnnxModel> {
  const quant = { q4: 'Q4_0', fp16: 'F16', fp32: 'F32' } as const
  const weights = (f.weights ?? 'q4') as keyof typeof quant
  if (f.onnx) {
    const path = resolve(io.cwd, f.onnx)
    const info = await stat(path).catch(() => undefined)
    if (!info?.isFile()) throw usageError(`${path} is not a file; pass an existing ONNX decoder with --onnx, or leave it out to synthesize one of --params`)
    // Its shape, read from the graph: what the stored run and the roofline prediction need.
    const { describeOnnxDecoder } = await import('@kerneltune/onnx')
    const d = describeOnnxDecoder(new Uint8Array(await readFile(path)))
    const model: ModelSpec = {
      name: basename(path), paramsB: d.params / 1e9, numLayers: d.layers, quant: quant[d.weights],
      ...(d.hidden ? { hiddenDim: d.hidden } : {}), ...(d.vocab ? { vocabSize: d.vocab } : {}),
      ...(d.heads ? { numHeads: d.heads, numKvHeads: d.kvHeads || d.heads, ...(d.hidden ? { headDim: d.hidden / d.heads } : {}) } : {}),
    }
    return { path, bytes: info.size, model, synthesized: false }
  }
  let params: number
  try {
    params = parseParamCount(f.params ?? '1B')
  } catch (e) {
    throw usageError(`--params: ${(e as Error).message}`)
  }
  const vocab = f.vocabSize ?? 32000
    const shape = chooseLlamaShape({ params, vocabSize: vocab })
  const dir = onnxCacheDir(io.env)
  const path = join(dir, `llama-${f.params ?? '1B'}-${weights}-v${vocab}-h${shape.hidden}-l${shape.layers}-seed1.onnx`)
  const spec = (): ModelSpec => ({
    name: `synthetic llama ${f.params ?? '1B'} (${weights})`, architecture: 'llama', paramsB: llamaParamCount(shape) / 1e9, hiddenDim: shape.hidden, intermediateDim: shape.ffn,
    numLayers: shape.layers, numHeads: shape.heads, numKvHeads: shape.kvHeads, headDim: shape.headDim, vocabSize: shape.vocab, contextLength: shape.contextLength, tieEmbeddings: false, quant: quant[weights],
  })
  const have = await stat(path).catch(() => undefined)
  if (have?.isFile()) {
    io.stderr(`using the synthesized model ${path} (${fmt(have.size / 2 ** 20, 0)} MiB)\n`)
    return { path, bytes: have.size, model: spec(), synthesized: true }
  }
  io.stderr(`synthesizing a ${f.params ?? '1B'} llama (${weights}, hidden ${shape.hidden}, ${shape.layers} layers, vocab ${vocab}) into ${dir}…\n`)
  const started = Date.now()
  const { synthOnnxLlama } = await import('@kerneltune/onnx')
  const m = synthOnnxLlama({ params, weights, vocabSize: vocab, seed: 1 })
  await mkdir(dir, { recursive: true })
  // Written beside and renamed: an interrupted write never leaves a file the next sweep would take for whole.
  const partial = `${path}.partial-${process.pid}`
  await writeFile(partial, m.bytes)
  await rename(partial, path)
  io.stderr(`written ${fmt(m.bytes.length / 2 ** 20, 0)} MiB, ${fmt(m.paramCount / 1e6, 1)}M parameters, in ${fmt((Date.now() - started) / 1000, 1)} s\n`)
  return { path, bytes: m.bytes.length, model: spec(), synthesized: true }
}

/** The roofline bounds of the model on the detected hardware at the sweep's workload: a prediction, not a measurement. */
function roofline(spec: ModelSpec | undefined, fileBytes: number, hardware: HardwareSpec, promptTokens: number): { decode: PhaseBound; prefill: PhaseBound } | undefined {
  if (!spec) return undefined
  // The weights as the file's bytes (MatMulNBits' scales and the fp32 embeddings included): the bound is then a little low, never flattering.
  const model = { ...spec, weightBytes: fileBytes }
  return {
    decode: decodeBound(model, hardware, { batch: 1, contextLength: promptTokens, kvBytesPerElement: 4 }),
    prefill: prefillBound(model, hardware, { batch: 1, contextLength: promptTokens, kvBytesPerElement: 4 }),
  }
}

export interface OnnxSweepInput {
  readonly store: Store
  readonly hardware: HardwareSpec
  readonly cores: number
  readonly signal: AbortSignal
  readonly resumeRunId?: string
  readonly force: boolean
}

const isInterleaved = (r: InterleavedSweepResult | SweepResult): r is InterleavedSweepResult => (r as InterleavedSweepResult).design === 'interleaved'

export async function runOnnxSweep(ctx: CommandContext<typeof SWEEP_FLAGS>, i: OnnxSweepInput): Promise<number> {
  const f = ctx.flags
  if (f.backend !== undefined && f.backend !== 'onnxruntime') throw usageError(`--engine onnx is measured by --backend onnxruntime, not ${f.backend}`)
  if (f.gguf) throw usageError('--engine onnx runs an ONNX model: pass --onnx FILE (or --params N to synthesize one), not --gguf')
  const unsupported = (['timeBudget', 'out', 'capacity', 'records', 'slo', 'objective'] as const).filter((k) => (f as Record<string, unknown>)[k] !== undefined)
  if (unsupported.length) throw usageError(`--engine onnx does not take ${unsupported.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}: those are for the llama.cpp paths`)
  const design = f.design ?? 'interleaved'
  const mode: Mode = f.quick ? 'quick' : 'standard'
  let override: OnnxSpace | undefined
  if (f.space) {
    try {
      override = JSON.parse(f.space) as OnnxSpace
    } catch {
      throw usageError(`--space is not JSON: ${f.space}`)
    }
  }
  const plan = planOnnxSweep(mode, i.hardware, i.cores, override)
  const m = await resolveOnnxModel(ctx.io, f)
  const d = SWEEP_DEFAULTS[mode]
  const promptTokens: number = f.promptTokens ?? d.promptTokens
  const genTokens: number = f.genTokens ?? d.genTokens
  const warmups: number = f.warmup ?? 1
  const rounds: number = f.rounds ?? (mode === 'quick' ? 8 : 12)
  const maxReps: number = f.reps ?? d.maxReps
  const gate = f.gate ?? SWEEP_GATE_DEFAULTS.gate
  const metric = f.metric ?? 'decodeTps'
  const epsilon: number = f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon
  const margin: number = f.margin ?? SWEEP_GATE_DEFAULTS.margin
  const { installedOrtVersion } = await import('@kerneltune/engines-onnx/node')
  const engine = onnxCpuEngine(await installedOrtVersion())
  const session: SweepSession = { spec: sweepSpecOf({ ...f, onnx: m.synthesized ? undefined : m.path }, i.cores), force: i.force, signal: i.signal, ...(i.resumeRunId ? { resumeRunId: i.resumeRunId } : {}) }
  const started = Date.now()
  ctx.io.stderr(`sweeping ${plan.candidates.length} ONNX Runtime combinations against its defaults, ${mode} mode, ${design} design, onnxruntime-node ${engine.defaultVersion} in-process (CPU execution provider)\n`)
  const arms = design === 'interleaved' ? plan.candidates.length + 2 : plan.candidates.length + 1
  const bar = progressBar(ctx.io, `sweep (${design})`, design === 'interleaved' ? rounds * arms : arms)
  const { runId, result: r, decided } = await sweepAsRun({
    // Measured by the composed onnxruntime backend, which reads the prompt and generated tokens from the run's workload.
    store: i.store, modelPath: m.path, hardware: i.hardware, plan, design, backendName: 'onnxruntime',
    workload: { batch: 1, promptTokens, generatedTokens: genTokens }, repetitions: design === 'interleaved' ? rounds : maxReps, warmups,
    settings: design === 'interleaved'
      ? { model: m.path, gate, metric, epsilon, margin, warmups, rounds, seed: f.seed ?? 1, test: f.test ?? 'sign-flip' }
      : { model: m.path, gate, metric, epsilon, margin, warmups, minReps: Math.min(maxReps, f.minReps ?? d.minReps), maxReps, earlyStop: f.noEarlyStop !== true, noiseFloor: f.noiseFloor ?? 0.05 },
    is: (x): x is InterleavedSweepResult | SweepResult => design === 'interleaved' ? isInterleaved(x) : !isInterleaved(x),
    session, ...(m.model ? { model: m.model } : {}), // Stored under the registry's name for the CPU plugin (compose: 'onnx-cpu'; 'onnx' is the
    // CUDA/TensorRT one), so run apply, tune start and the server translate the run with it.
    target: { engine: 'onnx-cpu', engineVersion: engine.defaultVersion },
    onEvent: (e) => e.type === 'progress' && bar.update(e.done, design === 'interleaved' ? `round ${Math.ceil(e.done / arms)}` : `${e.done}/${e.total}`),
  })
  bar.done()
  const seconds = (Date.now() - started) / 1000
  // The run's one verdict (the tuner's runVerdict), stored with its summary: what run show and the dashboard say.
  const verdict = decided.verdict
  const winnerCombo = decided.winner?.combo
  const recommended = engine.translate(onnxWithoutDefaults(winnerCombo ?? {}))
  const sessionOptions = recommended.ok ? JSON.parse(recommended.files['session_options.json'] ?? '{}') as Record<string, string> : {}
  const bound = roofline(m.model, m.bytes, i.hardware, promptTokens)
  const base = r.baseline.stats
  const prediction = bound
    ? {
        kind: 'prediction', source: 'roofline (from specifications, not measured)', hardware: { name: i.hardware.name, memBwGbs: i.hardware.memBwGbs, fp16Tflops: i.hardware.fp16Tflops },
        decode: { boundTps: bound.decode.boundTps, binding: bound.decode.binding, measuredDefaultsTps: base.decodeTps?.trimmedMean ?? null, fraction: (base.decodeTps?.trimmedMean ?? NaN) / bound.decode.boundTps },
        prefill: { boundTps: bound.prefill.boundTps, binding: bound.prefill.binding, measuredDefaultsTps: base.prefillTps?.trimmedMean ?? null, fraction: (base.prefillTps?.trimmedMean ?? NaN) / bound.prefill.boundTps },
      }
    : null
  const ok = verdict?.kind === 'winner'
  if (ctx.json) {
    ctx.printJson({
      ok: true, engine: 'onnx', ortVersion: engine.defaultVersion, ...r, runId, design, winner: r.winner ?? null,
      verdict: verdict ?? null, designVerdict: r.verdict, recommended: { combo: onnxWithoutDefaults(winnerCombo ?? {}), sessionOptions },
      model: { path: m.path, bytes: m.bytes, synthesized: m.synthesized, ...(m.model ? { spec: m.model } : {}) }, mode, space: plan.space, catalog: plan.catalog,
      workload: { promptTokens, genTokens }, roofline: prediction, seconds,
    })
  } else {
    ctx.io.stdout(renderOnnx(r, metric))
    if (prediction) {
      const pct = (x: number) => (Number.isFinite(x) ? `${fmt(x * 100, 1)}% of it` : 'not measured')
      ctx.io.stdout(`prediction (roofline on ${i.hardware.name}: ${fmt(i.hardware.memBwGbs)} GB/s, ${fmt(i.hardware.fp16Tflops)} TFLOPS; from specifications, not measured): decode at most ${fmt(prediction.decode.boundTps)} tok/s (${prediction.decode.binding}-bound), the defaults measured ${pct(prediction.decode.fraction)}; prefill at most ${fmt(prediction.prefill.boundTps)} tok/s (${prediction.prefill.binding}-bound), the defaults measured ${pct(prediction.prefill.fraction)}\n`)
    } else ctx.io.stdout('prediction: none (the shape of a given --onnx file is not read; a synthesized model has one)\n')
    ctx.io.stdout(`verdict: ${verdict?.headline ?? r.verdict}\n`)
    for (const why of verdict?.reasons ?? []) ctx.io.stdout(`  why: ${why}\n`)
    ctx.io.stdout(`recommended session options: ${JSON.stringify(sessionOptions)}${winnerCombo ? '' : ' (ORT\'s defaults)'}\n`)
    ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(seconds, 1)} s on ${m.path}; stored as run ${runId} (kerneltune run show ${runId})\n`)
  }
  // 0: a setting to change; 3: the defaults stay (the verdict says why).
  return ok ? 0 : 3
}

/** Every combination against ORT's defaults, on the paired (interleaved) or unpaired (sequential) comparison. */
function renderOnnx(r: InterleavedSweepResult | SweepResult, metric: string): string {
  const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${fmt(x * 100, 1)}%`)
  const cmp = (c: (typeof r.combos)[number], k: 'decodeTps' | 'prefillTps') => ('paired' in c ? c.paired[k] : undefined) ?? c.comparison[k]
  const pOf = (c: (typeof r.combos)[number]) => {
    const x = cmp(c, metric as 'decodeTps')
    return x === undefined ? '-' : ('welch' in x ? x.welch.pValue : x.pValue).toPrecision(2)
  }
  const rows = [...r.combos]
    .sort((a, b) => (b.stats.decodeTps?.trimmedMean ?? -Infinity) - (a.stats.decodeTps?.trimmedMean ?? -Infinity))
    .map((c) => [label(c.combo), c.error ? 0 : c.reps.length, c.error ? `failed: ${c.error.slice(0, 60)}` : fmt(c.stats.decodeTps?.trimmedMean ?? NaN), pct(cmp(c, 'decodeTps')?.improvement), fmt(c.stats.prefillTps?.trimmedMean ?? NaN), pct(cmp(c, 'prefillTps')?.improvement), pOf(c)])
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `ORT defaults: decode ${fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s, prefill ${fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (trimmed means of ${r.baseline.reps.length} ${isInterleaved(r) ? 'rounds' : 'reps'})\n\n`
  out += table(rows, ['combination', isInterleaved(r) ? 'rounds' : 'reps', 'decode tok/s', 'vs default', 'prefill tok/s', 'vs default', `p (${metric})`])
  return `${out}\n`
}
