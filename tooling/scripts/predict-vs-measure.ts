/**
 * Prediction against measurement for llama.cpp on this machine. Synthesizes llama models of
 * several sizes and weight types, predicts each one's decode and prefill tokens/s from this
 * machine's detected hardware (memory bandwidth from a short copy probe), measures each for real
 * through node-llama-cpp, calibrates the predictor on some sizes and reports the error before and
 * after calibration on the sizes it did not calibrate on.
 *
 *   pnpm exec tsx --conditions=@kerneltune/source tooling/scripts/predict-vs-measure.ts [--doc] [--threads N] [--reps N] [--prompt N] [--gen N]
 *
 * Timing-sensitive: run it on a quiet machine (nothing else measuring, low load); the result
 * records the load average before and after.
 *
 * Writes bench/results/llamacpp-predict-vs-measure.json and prints a markdown table; with --doc
 * it also writes docs/prediction-vs-measurement.md; --render-only rewrites the doc from the saved
 * result without measuring; --repredict keeps the saved measurements and recomputes the
 * predictions with the current pretrained model (after a model change).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { synthLlama, type SynthQuant } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { detectHardware, fromGguf, specFromDetected } from '@kerneltune/features/node'
import { pretrainedModel, queryBound, parseQuery, pretrainedInfo, type ThroughputQueryInput } from '@kerneltune/regressor'
import { summarizeRepetitions } from '@kerneltune/experiment'
import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
import { calibrateAndScore, hardwareQuery, shapeQuery } from './predict-vs-measure-calibration.ts'
import { slim, type Phase, type ReportPoint } from './predict-vs-measure-point.ts'
import { renderTable } from './predict-vs-measure-table.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const { values: args } = parseArgs({
  options: {
    doc: { type: 'boolean', default: false },
    'render-only': { type: 'boolean', default: false },
    repredict: { type: 'boolean', default: false },
    threads: { type: 'string', default: '1' },
    reps: { type: 'string', default: '7' },
    // Long enough that a repetition of the smallest model is not mostly timer and scheduling noise
    // (at 128/32 tokens a 15M model's decode lasted about 30 ms and its 95% interval was ±20%).
    prompt: { type: 'string', default: '256' },
    gen: { type: 'string', default: '128' },
    sizes: { type: 'string', default: '15M,30M,60M,120M,240M' },
    quants: { type: 'string', default: 'Q8_0,Q4_0' },
    calibrate: { type: 'string', default: '15M,60M,240M' },
  },
})
const SIZES = args.sizes!.split(',')
const QUANTS = args.quants!.split(',') as SynthQuant[]
const CALIBRATE = new Set(args.calibrate!.split(','))
const REPS = Number(args.reps)
const PROMPT = Number(args.prompt)
const GEN = Number(args.gen)
const parse = (s: string) => Number(s.slice(0, -1)) * (s.endsWith('M') ? 1e6 : s.endsWith('B') ? 1e9 : 1)

const RESULT = join(ROOT, 'bench', 'results', 'llamacpp-predict-vs-measure.json')
if (args.repredict) {
  // Re-predicts the saved measurements with the current model (see predict-vs-measure-repredict.ts).
  const { repredict } = await import('./predict-vs-measure-repredict.ts')
  const { renderDoc } = await import('./predict-vs-measure-doc.ts')
  const result = repredict(JSON.parse(readFileSync(RESULT, 'utf8')) as Parameters<typeof repredict>[0] & Parameters<typeof renderDoc>[0])
  writeFileSync(RESULT, JSON.stringify(result, null, 2) + '\n')
  const table = renderTable(result.points, result.errors)
  console.log(table)
  if (args.doc) {
    writeFileSync(join(ROOT, 'docs', 'prediction-vs-measurement.md'), renderDoc(result, table))
    console.error('wrote docs/prediction-vs-measurement.md')
  }
  process.exit(0)
}
if (args['render-only']) {
  // Rewrites the doc from the last measured result (after a wording change), measuring nothing.
  const { renderDoc } = await import('./predict-vs-measure-doc.ts')
  const saved = JSON.parse(readFileSync(RESULT, 'utf8'))
  writeFileSync(join(ROOT, 'docs', 'prediction-vs-measurement.md'), renderDoc(saved, renderTable(saved.points, saved.errors)))
  console.error('wrote docs/prediction-vs-measurement.md from the saved result')
  process.exit(0)
}

const started = new Date()
// The load average before and after (1, 5, 15 minutes): the machine is shared, and the figures say how busy it was.
const loadBefore = loadavg()
const detected = await detectHardware()
const spec = specFromDetected(detected)
const hw = hardwareQuery(spec, detected.cpu.model, { used: Number(args.threads), cores: detected.cpu.cores })
console.error(`hardware: ${spec.name}; ${spec.sources.join('; ')}`)
const predictor = pretrainedModel()
const dir = mkdtempSync(join(tmpdir(), 'kt-pvm-'))
const points: ReportPoint[] = []
try {
  for (const size of SIZES) {
    for (const quant of QUANTS) {
      const synth = synthLlama({ params: parse(size), quant, seed: 1, vocabSize: 2048 })
      const path = join(dir, `m-${size}-${quant}.gguf`)
      await writeGgufFile(path, synth.file)
      const { model } = await fromGguf(path)
      // Decode is predicted at the middle of the generated run (the prompt is already in the KV
      // cache), prefill for the whole prompt at once, both at batch 1 as llama.cpp runs them here.
      const base = { paramsB: model.paramsB, quant: model.quant, ...hw, batch: 1, ...shapeQuery(synth.shape) }
      const query: Record<Phase, ThroughputQueryInput> = {
        decode: { ...base, phase: 'decode', contextTokens: PROMPT + GEN / 2 },
        prefill: { ...base, phase: 'prefill', promptTokens: PROMPT },
      }
      const backend = llamacppBackend({ modelPath: path, promptTokens: PROMPT, genTokens: GEN })
      const r = await backend.measure({ combo: { threads: args.threads! }, warmups: 1, repetitions: REPS })
      const s = summarizeRepetitions(r.repetitions)
      rmSync(path)
      const ci = (m: typeof s.decodeTps) => (m?.ci95 ? ([m.ci95.low, m.ci95.high] as [number, number]) : undefined)
      const p: ReportPoint = {
        size, quant, params: synth.paramCount, bytes: synth.layout.totalBytes, device: r.device,
        calibration: CALIBRATE.has(size),
        query,
        predicted: { decode: slim(predictor.predict(query.decode)), prefill: slim(predictor.predict(query.prefill)) },
        binding: { decode: queryBound(parseQuery(query.decode)).binding, prefill: queryBound(parseQuery(query.prefill)).binding },
        measured: { decode: s.decodeTps!.trimmedMean, prefill: s.prefillTps!.trimmedMean },
        ci: { decode: ci(s.decodeTps), prefill: ci(s.prefillTps) },
      }
      points.push(p)
      console.error(`${size} ${quant}: decode predicted ${p.predicted.decode.predictedTps.toFixed(1)} measured ${p.measured.decode.toFixed(1)}; prefill predicted ${p.predicted.prefill.predictedTps.toFixed(0)} measured ${p.measured.prefill.toFixed(0)}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

// The regressor's calibrate, one fit per phase on the calibration sizes; the calibrated models are
// then evaluated on the held-out sizes, which no fit saw.
const { errors } = calibrateAndScore(predictor, points)
const table = renderTable(points, errors)

const info = pretrainedInfo() as { hardware: string[]; sampleCount: number; scriptVersion: string; description: string }
const result = {
  measured: true,
  date: started.toISOString(),
  command: 'pnpm exec tsx --conditions=@kerneltune/source tooling/scripts/predict-vs-measure.ts --doc',
  predictor: { name: predictor.name, kind: 'pretrained', modelKind: predictor.kind, description: info.description, scriptVersion: info.scriptVersion, trainedOn: info.hardware, sampleCount: info.sampleCount },
  calibration: {
    method: '@kerneltune/regressor calibrate, one fit per phase', calibratedOn: [...CALIBRATE],
    factors: { decode: errors.decode.factor, prefill: errors.prefill.factor },
    overheadFactors: { decode: errors.decode.overheadFactor, prefill: errors.prefill.overheadFactor },
    formatFactors: { decode: errors.decode.formatFactors, prefill: errors.prefill.formatFactors },
  },
  hardware: { detected, spec, query: hw },
  device: points[0]?.device,
  workload: { promptTokens: PROMPT, genTokens: GEN, combo: { threads: args.threads }, reps: REPS, warmups: 1 },
  load: { before: loadBefore, after: loadavg() },
  points,
  errors,
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
writeFileSync(RESULT, JSON.stringify(result, null, 2) + '\n')
console.log(table)
if (args.doc) {
  const { renderDoc } = await import('./predict-vs-measure-doc.ts')
  writeFileSync(join(ROOT, 'docs', 'prediction-vs-measurement.md'), renderDoc(result, table))
  console.error('wrote docs/prediction-vs-measurement.md')
}
