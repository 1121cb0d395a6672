/**
 * `kerneltune sweep --engine onnx` (moved out of the CLI, issue 36): a Tier 1 sweep over ONNX
 * Runtime's CPU execution provider (onnxruntime-node, in-process), through the same stored run and
 * tuner as the GGUF sweep (run.node.ts): the plan is ORT's CPU dimensions enumerated through the
 * catalog (@kerneltune/engines-onnx's sweep space), each combination a real InferenceSession, the
 * interleaved design by default. The model is --onnx FILE, or a llama of --params synthesized once
 * into the cache folder. The roofline bound of the model on the detected hardware is given beside
 * the measured defaults, labelled a prediction.
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import process from 'node:process'
import { KerneltuneError, type HardwareSpec, type ModelSpec } from '@kerneltune/core'
import { onnxCpuEngine, onnxWithoutDefaults } from '@kerneltune/engines-onnx'
import { SWEEP_GATE_DEFAULTS, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import { chooseLlamaShape, llamaParamCount, parseParamCount } from '@kerneltune/gguf'
import { decodeBound, prefillBound, type PhaseBound } from '@kerneltune/roofline'
import { parseSpace, planOnnxSweep, SWEEP_DEFAULTS, type SweepFlags, type SweepMode } from './plan.ts'
import { isInterleaved, planOutcome, renderOnnx } from './report.ts'
import { sweepAsRun } from './run.node.ts'
import type { SweepInput, SweepIo, SweepOutcome } from './session.ts'

/** Where synthesized models are kept: $KERNELTUNE_CACHE_DIR, else $XDG_CACHE_HOME/kerneltune, else ~/.cache/kerneltune; then onnx/. */
export function onnxCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const root = env.KERNELTUNE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kerneltune')
  return join(root, 'onnx')
}

interface OnnxModel { path: string; bytes: number; model?: ModelSpec; synthesized: boolean }

/** --onnx FILE, or the llama of --params synthesized (once: the file is kept in the cache folder by shape, weights and seed). */
async function resolveOnnxModel(io: SweepIo, f: SweepFlags): Promise<OnnxModel> {
  const quant = { q4: 'Q4_0', fp16: 'F16', fp32: 'F32' } as const
  const weights = (f.weights ?? 'q4') as keyof typeof quant
  if (f.onnx) {
    const path = resolve(io.cwd, f.onnx)
    const info = await stat(path).catch(() => undefined)
    if (!info?.isFile()) throw new KerneltuneError('INVALID_INPUT', `${path} is not a file; pass an existing ONNX decoder with --onnx, or leave it out to synthesize one of --params`)
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
    throw new KerneltuneError('INVALID_INPUT', `--params: ${(e as Error).message}`)
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
    io.stderr(`using the synthesized model ${path} (${io.text.fmt(have.size / 2 ** 20, 0)} MiB)\n`)
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
  io.stderr(`written ${io.text.fmt(m.bytes.length / 2 ** 20, 0)} MiB, ${io.text.fmt(m.paramCount / 1e6, 1)}M parameters, in ${io.text.fmt((Date.now() - started) / 1000, 1)} s\n`)
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

export async function sweepOnnx(i: SweepInput): Promise<SweepOutcome> {
  const f = i.flags
  if (f.backend !== undefined && f.backend !== 'onnxruntime') throw new KerneltuneError('INVALID_INPUT', `--engine onnx is measured by --backend onnxruntime, not ${f.backend}`)
  if (f.gguf) throw new KerneltuneError('INVALID_INPUT', '--engine onnx runs an ONNX model: pass --onnx FILE (or --params N to synthesize one), not --gguf')
  const unsupported = (['timeBudget', 'out', 'capacity', 'records', 'slo', 'objective'] as const).filter((k) => (f as Record<string, unknown>)[k] !== undefined)
  if (unsupported.length) throw new KerneltuneError('INVALID_INPUT', `--engine onnx does not take ${unsupported.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}: those are for the llama.cpp paths`)
  const design = f.design ?? 'interleaved'
  const mode: SweepMode = f.quick ? 'quick' : 'standard'
  const plan = planOnnxSweep(mode, i.hardware, i.cores, f.space ? parseSpace(f.space) : undefined)
  if (f.plan) return planOutcome(i.io.text, 'onnx', plan)
  const m = await resolveOnnxModel(i.io, f)
  const d = SWEEP_DEFAULTS[mode]
  const promptTokens: number = f.promptTokens ?? d.promptTokens
  const genTokens: number = f.genTokens ?? d.genTokens
  const warmups: number = f.warmup ?? 1
  const rounds: number = f.rounds ?? d.rounds
  const maxReps: number = f.reps ?? d.maxReps
  const gate = f.gate ?? SWEEP_GATE_DEFAULTS.gate
  const metric = f.metric ?? 'decodeTps'
  const epsilon: number = f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon
  const margin: number = f.margin ?? SWEEP_GATE_DEFAULTS.margin
  const { installedOrtVersion } = await import('@kerneltune/engines-onnx/node')
  const engine = onnxCpuEngine(await installedOrtVersion())
  const session = { spec: i.specOf({ ...f, onnx: m.synthesized ? undefined : m.path }), force: i.force, signal: i.signal, ...(i.resumeRunId ? { resumeRunId: i.resumeRunId } : {}) }
  const started = Date.now()
  i.io.stderr(`sweeping ${plan.candidates.length} ONNX Runtime combinations against its defaults, ${mode} mode, ${design} design, onnxruntime-node ${engine.defaultVersion} in-process (CPU execution provider)\n`)
  const arms = design === 'interleaved' ? plan.candidates.length + 2 : plan.candidates.length + 1
  const bar = i.io.progress(`sweep (${design})`, design === 'interleaved' ? rounds * arms : arms)
  const { runId, result: r, decided } = await sweepAsRun({
    // Measured by the composed onnxruntime backend, which reads the prompt and generated tokens from the run's workload.
    store: i.store, modelPath: m.path, hardware: i.hardware, plan, design, backendName: 'onnxruntime',
    workload: { batch: 1, promptTokens, generatedTokens: genTokens }, repetitions: design === 'interleaved' ? rounds : maxReps, warmups,
    settings: design === 'interleaved'
      ? { model: m.path, gate, metric, epsilon, margin, warmups, rounds, seed: f.seed ?? 1, test: f.test ?? 'sign-flip' }
      : { model: m.path, gate, metric, epsilon, margin, warmups, minReps: Math.min(maxReps, f.minReps ?? d.minReps), maxReps, earlyStop: f.noEarlyStop !== true, noiseFloor: f.noiseFloor ?? 0.05 },
    is: (x): x is InterleavedSweepResult | SweepResult => (design === 'interleaved') === isInterleaved(x),
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
  const t = i.io.text
  const json = {
    ok: true, engine: 'onnx', ortVersion: engine.defaultVersion, ...r, runId, design, winner: r.winner ?? null,
    verdict: verdict ?? null, designVerdict: r.verdict, recommended: { combo: onnxWithoutDefaults(winnerCombo ?? {}), sessionOptions },
    model: { path: m.path, bytes: m.bytes, synthesized: m.synthesized, ...(m.model ? { spec: m.model } : {}) }, mode, space: plan.space, catalog: plan.catalog,
    workload: { promptTokens, genTokens }, roofline: prediction, seconds,
  }
  let text = renderOnnx(t, r, metric)
  if (prediction) {
    const pct = (x: number) => (Number.isFinite(x) ? `${t.fmt(x * 100, 1)}% of it` : 'not measured')
    text += `prediction (roofline on ${i.hardware.name}: ${t.fmt(i.hardware.memBwGbs)} GB/s, ${t.fmt(i.hardware.fp16Tflops)} TFLOPS; from specifications, not measured): decode at most ${t.fmt(prediction.decode.boundTps)} tok/s (${prediction.decode.binding}-bound), the defaults measured ${pct(prediction.decode.fraction)}; prefill at most ${t.fmt(prediction.prefill.boundTps)} tok/s (${prediction.prefill.binding}-bound), the defaults measured ${pct(prediction.prefill.fraction)}\n`
  } else text += 'prediction: none (the shape of a given --onnx file is not read; a synthesized model has one)\n'
  text += `verdict: ${verdict?.headline ?? r.verdict}\n`
  for (const why of verdict?.reasons ?? []) text += `  why: ${why}\n`
  text += `recommended session options: ${JSON.stringify(sessionOptions)}${winnerCombo ? '' : ' (ORT\'s defaults)'}\n`
  text += `${r.combos.length} combinations measured in ${t.fmt(seconds, 1)} s on ${m.path}; stored as run ${runId} (kerneltune run show ${runId})\n`
  // 0: a setting to change; 3: the defaults stay (the verdict says why).
  return { code: verdict?.kind === 'winner' ? 0 : 3, json, text }
}
