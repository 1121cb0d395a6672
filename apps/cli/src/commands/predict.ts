/**
 * `kerneltune predict`: predicted throughput (tokens/s) of a model on hardware, clamped by the
 * roofline bound and labelled as a prediction. Default model: the pretrained one shipped with
 * @kerneltune/regressor; `--model-file` loads a trained or calibrated model, `--heuristic` uses
 * trueno's default regressor. `--input rows.jsonl` predicts one row per line, in order; a bad line
 * gives an error object for that line.
 */
import { BACKEND_NAMES, VENDOR_NAMES, backendOf, kernelFiguresQuery, learnedFromFile, predictLine, predictorFor, pretrainedModel, targetQuery, type LearnedModel, type PredictionInterval, type Predictor } from '@kerneltune/regressor'
import { findHardwarePreset } from '@kerneltune/features'
import { usageError } from '../cli/args.ts'
import { defineCommand, type Io } from '../cli/command.ts'
import { readFlagFile } from '../cli/files.ts'
import { fmt, keyValues } from '../cli/output.ts'
import { HARDWARE_FLAGS, MODEL_FLAGS, WORKLOAD_FLAGS, readJsonFile, resolveHardware, resolveModel, resolveWorkload } from './shared/target-flags.ts'

export const PREDICT_FLAGS = [
  { name: 'phase', type: 'string', choices: ['decode', 'prefill'], description: 'Phase to predict (same as --prefill for prefill). Default decode.' },
  { name: 'context', type: 'integer', valueName: 'N', min: 0, description: 'Decode: tokens already in each KV cache (same as --seq-len).' },
  { name: 'model-file', type: 'string', valueName: 'FILE', description: 'A saved model (kerneltune train / calibrate). Default: the pretrained model.' },
  { name: 'heuristic', type: 'boolean', description: "Use trueno's default heuristic regressor instead." },
  { name: 'backend', type: 'string', choices: [...BACKEND_NAMES], description: "llama.cpp backend (the same card runs at different speeds on CUDA and on Vulkan). Default: the preset's usual one, else the vendor's." },
  { name: 'vendor', type: 'string', choices: [...VENDOR_NAMES], description: 'Vendor of the hardware (overrides the preset; with --mem-bw-gbs/--tflops alone the query is vendor "other" unless given).' },
  { name: 'ubatch', type: 'integer', valueName: 'N', min: 1, description: "Prefill micro-batch (llama.cpp's n_ubatch, default 512): the weights are read once per micro-batch." },
  { name: 'int8-tops', type: 'number', valueName: 'N', min: 0.001, description: "Dense int8 TOPS of the units llama.cpp's quantized matrix kernels use (tensor/matrix cores, else DP4A/dot4): quantized prefill runs at this rate (overrides the preset)." },
  { name: 'fp16-nontensor-tflops', type: 'number', valueName: 'N', min: 0.001, description: 'FP16 TFLOPS of the shader ALUs without tensor units (overrides the preset; carried in the query).' },
  { name: 'clock-mhz', type: 'number', valueName: 'MHZ', min: 1, description: 'Boost clock in MHz (overrides the preset; carried in the query).' },
  { name: 'compute-units', type: 'integer', valueName: 'N', min: 1, description: 'SMs, CUs or Xe cores (overrides the preset; carried in the query).' },
  { name: 'bits-per-weight', type: 'number', valueName: 'B', min: 0.5, max: 64, description: "Average bits per weight of the model file (size × 8 ÷ parameters), for mixed-format files; default the format's." },
] as const

/** The learned model of --model-file (the base of a calibrated one), or the pretrained model. */
export async function loadLearned(io: Io, file: string | undefined): Promise<LearnedModel> {
  return file === undefined ? pretrainedModel() : learnedFromFile(await readJsonFile(io, file, 'model-file'))
}

/** What predicts: --heuristic, else --model-file (trained or calibrated), else the pretrained model. */
export async function loadPredictor(io: Io, file: string | undefined, heuristic = false): Promise<Predictor> {
  const json = file !== undefined && !heuristic ? await readJsonFile(io, file, 'model-file') : undefined
  return predictorFor({ heuristic, ...(file !== undefined ? { file } : {}), json })
}

/** The model, hardware and workload that predict and recommend read from the same flags. */
export async function predictTarget(f: Record<string, unknown> & { phase?: string; prefill?: boolean; context?: number }, io: Io) {
  const m = (await resolveModel(f, io))!
  const hw = resolveHardware(f)!
  if (f.phase === 'decode' && f.prefill === true) throw usageError('--phase decode contradicts --prefill')
  const prefill = f.phase === 'prefill' || f.prefill === true
  const w = resolveWorkload({ ...f, prefill })
  const contextTokens = prefill ? 0 : (f.context ?? w.contextLength ?? 0)
  return { m, hw, w, prefill, contextTokens, workload: { batch: w.batch, phase: prefill ? 'prefill' as const : 'decode' as const, promptTokens: w.promptTokens, contextTokens } }
}

const intervalText = (iv: PredictionInterval | undefined) => (iv ? ` [90%: ${fmt(iv.low)}–${fmt(iv.high)}]` : '')

export const predictCommand = defineCommand({
  name: 'predict',
  summary: 'Predict throughput (tokens/s) of a model on hardware, clamped by the roofline bound.',
  description: 'A prediction, not a measurement. The pretrained model is a physics model (weight and KV bytes over bandwidth, compute, dequantization, per-layer and per-step overheads, efficiencies learned per hardware class, vendor and format) fitted on public llama.cpp measurements; every prediction carries a 90% interval whose coverage on unseen hardware was measured (see the regressor README for the leave-one-hardware-out accuracy and coverage). With --input FILE (JSON lines with keys paramsB, activeParamsB, quant, bitsPerWeight, batch, phase, promptTokens, contextTokens or context, ubatch, memBwGbs, tflops, int8Tops, fp16VectorTflops, clockMhz, computeUnits, vendor, backend, layers, device, tdpWatts, or hardware for a preset) one result is printed per line, in order. The backend (cuda, metal, vulkan, rocm, sycl, cpu) is part of the query: a preset names its usual one, --backend or a "backend" key overrides it.',
  flags: [...MODEL_FLAGS, ...HARDWARE_FLAGS, ...WORKLOAD_FLAGS, ...PREDICT_FLAGS, { name: 'input', type: 'string', valueName: 'FILE', description: 'JSON lines to predict in bulk (one result per line).' }],
  jsonOutput: '{ "kind": "prediction", "predictedTps": number, "rooflineTps": number, "capped": boolean, "rawTps": number, "confidence": number, "interval": { "low": number, "high": number, "level": 0.9 } (absent for --heuristic and models saved without one), "extrapolation": string[] (the vendor, hardware class, weight format or backend build no training row had, e.g. "vendor:amd", "era:current:rocm"; absent when the query is inside the data), "topFeatures": [name, importance][], "model": string, "modelVersion": string (which model predicted: the training script\'s version and seed, e.g. "pretrained-physics v3.2.0 (packages/regressor/scripts/train-pretrained.ts, seed 42)"), "query": ThroughputQuery }. With --input: one such object per line plus "line", or { "line", "error": { code, message } } for a bad line.',
  examples: [
    'kerneltune predict --model llama-3-8b --hardware rtx-4090 --batch 1',
    'kerneltune predict --params-b 70 --quant Q4_K --mem-bw-gbs 5300 --tflops 1300 --phase prefill --prompt-tokens 2048 --json',
    'kerneltune predict --params-b 8 --quant Q4_0 --backend cuda --vendor nvidia --mem-bw-gbs 1792 --tflops 419',
    'kerneltune predict --model llama-3-8b --hardware rtx-4090 --backend vulkan',
    'kerneltune predict --params-b 7 --quant Q4_0 --vendor nvidia --mem-bw-gbs 1008 --tflops 330 --int8-tops 660 --phase prefill',
    'kerneltune predict --input rows.jsonl --json',
  ],
  async run(ctx) {
    const f = ctx.flags
    const predictor = await loadPredictor(ctx.io, f.modelFile, f.heuristic === true)
    if (f.input !== undefined) {
      const lines = (await readFlagFile(ctx.io, f.input, 'input')).split(/\r?\n/)
      if (lines.at(-1) === '') lines.pop()
      for (const [i, line] of lines.entries()) {
        const out = predictLine(predictor, line, i + 1)
        if (ctx.json) ctx.io.stdout(JSON.stringify(out) + '\n')
        else ctx.io.stdout(out.error ? `${i + 1}: error: ${(out.error as { message: string }).message}\n` : `${i + 1}: prediction ${fmt(out.predictedTps as number)} tok/s${intervalText(out.interval as PredictionInterval | undefined)} (roofline ${fmt(out.rooflineTps as number)}${out.capped ? ', capped' : ''}, confidence ${fmt(out.confidence as number, 2)}${out.extrapolation ? `; extrapolates: ${(out.extrapolation as string[]).join(', ')}` : ''})\n`)
      }
      return
    }
    const { m, hw, workload } = await predictTarget(f, ctx.io)
    // The preset's usual backend unless --backend says otherwise; without either, the vendor's (backendOf).
    const preset = f.hardware !== undefined ? findHardwarePreset(String(f.hardware)) : undefined
    const q = targetQuery({ model: m.model, hardware: hw.hardware, workload }, {
      vendor: f.vendor, backend: f.backend ?? preset?.backend, ubatch: f.ubatch, bitsPerWeight: f.bitsPerWeight, device: hw.hardware.kind === 'cpu' ? 'cpu' : undefined,
      // The kernel figures (issue 38): the preset's, each overridden by its flag.
      ...kernelFiguresQuery(preset ?? {}, { int8Tops: f.int8Tops, fp16VectorTflops: f.fp16NontensorTflops, clockMhz: f.clockMhz, computeUnits: f.computeUnits }),
    })
    const p = predictor.predict(q)
    if (ctx.json) return void ctx.printJson({ ...p, modelVersion: predictor.modelVersion, query: q, modelSource: m.source, hardwareSource: hw.source, assumptions: [...m.assumptions, ...hw.assumptions] })
    ctx.io.stdout(`Prediction (${predictor.name}; not a measurement)\n\n`)
    ctx.io.stdout(keyValues([
      ['model', `${fmt(m.model.paramsB, 2)}B ${m.model.quant} (${m.source})`],
      ['hardware', `${hw.hardware.name}: ${fmt(hw.hardware.memBwGbs)} GB/s, ${fmt(hw.hardware.fp16Tflops)} TFLOPS, vendor ${q.vendor}, backend ${backendOf(q)}${q.backend ? '' : " (the vendor's usual one)"} (${hw.source})`],
      ['workload', `${q.phase}, batch ${q.batch}${q.phase === 'prefill' ? `, prompt ${q.promptTokens}` : `, context ${q.contextTokens}`}`],
      ['prediction', `${fmt(p.predictedTps)} tok/s${p.capped ? ` (capped from ${fmt(p.rawTps)})` : ''}`],
      ...(p.interval ? [['90% interval', `${fmt(p.interval.low)} – ${fmt(p.interval.high)} tok/s (${p.extrapolation ? 'its coverage was measured on unseen chips of kinds the data has; this query is not one, see below' : 'held-out coverage measured on unseen hardware'})`] as [string, string]] : []),
      ...(p.extrapolation ? [['extrapolates', `${p.extrapolation.join(', ')}${predictor.extrapolationNote ? ` (${predictor.extrapolationNote})` : ' (no training row has these)'}`] as [string, string]] : []),
      ['roofline bound', `${fmt(p.rooflineTps)} tok/s`],
      ['confidence', fmt(p.confidence, 3)],
      ['top features', p.topFeatures.map(([n, v]) => `${n} ${fmt(v, 3)}`).join(', ')],
    ]))
  },
})
