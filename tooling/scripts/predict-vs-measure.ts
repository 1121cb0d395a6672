/**
 * Prediction against measurement for llama.cpp on this machine. Synthesizes llama models of
 * several sizes and weight types, predicts each one's decode and prefill tokens/s from this
 * machine's detected hardware (memory bandwidth from a short copy probe), measures each for real
 * through node-llama-cpp, calibrates the predictor on some sizes and reports the error before and
 * after calibration on the sizes it did not calibrate on.
 *
 *   pnpm exec tsx --conditions=@kerneltune/source tooling/scripts/predict-vs-measure.ts [--doc] [--threads N] [--reps N]
 *
 * Writes bench/results/llamacpp-predict-vs-measure.json and prints a markdown table; with --doc
 * it also writes docs/prediction-vs-measurement.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { synthLlama, type SynthQuant } from '../../packages/gguf/src/index.ts'
import { writeGgufFile } from '../../packages/gguf/src/node.ts'
import { detectHardware, fromGguf, specFromDetected } from '../../packages/features/src/adapters/node.ts'
import { decodeBound, prefillBound } from '../../packages/roofline/src/index.ts'
import { summarizeRepetitions } from '../../packages/engines-llamacpp/src/index.ts'
import { llamacppBackend } from '../../packages/engines-llamacpp/src/node.ts'
import { calibrateRatio, mape, type Point } from './predict-vs-measure-calibration.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const { values: args } = parseArgs({
  options: {
    doc: { type: 'boolean', default: false },
    threads: { type: 'string', default: '1' },
    reps: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '15M,30M,60M,120M,240M' },
    quants: { type: 'string', default: 'Q8_0,Q4_0' },
    calibrate: { type: 'string', default: '15M,60M,240M' },
  },
})
const SIZES = args.sizes!.split(',')
const QUANTS = args.quants!.split(',') as SynthQuant[]
const CALIBRATE = new Set(args.calibrate!.split(','))
const REPS = Number(args.reps)
const PROMPT = 128
const GEN = 32
const parse = (s: string) => Number(s.slice(0, -1)) * (s.endsWith('M') ? 1e6 : s.endsWith('B') ? 1e9 : 1)

const started = new Date()
const detected = await detectHardware()
const spec = specFromDetected(detected)
console.error(`hardware: ${spec.name}; ${spec.sources.join('; ')}`)
const dir = mkdtempSync(join(tmpdir(), 'kt-pvm-'))
const points: (Point & { size: string; quant: string; params: number; bytes: number; device: string; decodeCi?: [number, number]; prefillCi?: [number, number]; decodeBinding: string; prefillBinding: string })[] = []
try {
  for (const size of SIZES) {
    for (const quant of QUANTS) {
      const synth = synthLlama({ params: parse(size), quant, seed: 1, vocabSize: 2048 })
      const path = join(dir, `m-${size}-${quant}.gguf`)
      await writeGgufFile(path, synth.file)
      const { model } = await fromGguf(path)
      const dec = decodeBound(model, spec, { batch: 1, contextLength: PROMPT + GEN / 2 })
      const pre = prefillBound(model, spec, { batch: 1, contextLength: PROMPT })
      const backend = llamacppBackend({ modelPath: path, promptTokens: PROMPT, genTokens: GEN })
      const r = await backend.measure({ combo: { threads: args.threads! }, warmups: 1, repetitions: REPS })
      const s = summarizeRepetitions(r.repetitions)
      rmSync(path)
      const p = {
        size, quant, params: synth.paramCount, bytes: synth.layout.totalBytes, device: r.device,
        calibration: CALIBRATE.has(size),
        predicted: { decodeTps: dec.boundTps, prefillTps: pre.boundTps },
        measured: { decodeTps: s.decodeTps!.trimmedMean, prefillTps: s.prefillTps!.trimmedMean },
        decodeBinding: dec.binding, prefillBinding: pre.binding,
        ...(s.decodeTps!.ci95 ? { decodeCi: [s.decodeTps!.ci95.low, s.decodeTps!.ci95.high] as [number, number] } : {}),
        ...(s.prefillTps!.ci95 ? { prefillCi: [s.prefillTps!.ci95.low, s.prefillTps!.ci95.high] as [number, number] } : {}),
      }
      points.push(p)
      console.error(`${size} ${quant}: decode predicted ${p.predicted.decodeTps.toFixed(1)} measured ${p.measured.decodeTps.toFixed(1)}; prefill predicted ${p.predicted.prefillTps.toFixed(0)} measured ${p.measured.prefillTps.toFixed(0)}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const calib = calibrateRatio(points.filter((p) => p.calibration))
const held = points.filter((p) => !p.calibration)
const after = (p: Point) => ({ decodeTps: p.predicted.decodeTps * calib.decodeTps, prefillTps: p.predicted.prefillTps * calib.prefillTps })
const errors = {
  decodeTps: { before: mape(held, (p) => p.predicted.decodeTps, (p) => p.measured.decodeTps), after: mape(held, (p) => after(p).decodeTps, (p) => p.measured.decodeTps) },
  prefillTps: { before: mape(held, (p) => p.predicted.prefillTps, (p) => p.measured.prefillTps), after: mape(held, (p) => after(p).prefillTps, (p) => p.measured.prefillTps) },
}

const f = (x: number, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const err = (pred: number, meas: number) => `${pred >= meas ? '+' : ''}${f(((pred - meas) / meas) * 100, 0)}%`
const rows = points.map((p) => {
  const a = after(p)
  return `| ${p.size} ${p.quant} | ${f(p.params / 1e6, 1)}M | ${f(p.bytes / 1e6, 1)} | ${p.calibration ? 'calibration' : '**held out**'} | ${f(p.predicted.decodeTps)} (${err(p.predicted.decodeTps, p.measured.decodeTps)}) | ${f(a.decodeTps)} (${err(a.decodeTps, p.measured.decodeTps)}) | **${f(p.measured.decodeTps)}**${p.decodeCi ? ` [${f(p.decodeCi[0])}, ${f(p.decodeCi[1])}]` : ''} | ${f(p.predicted.prefillTps, 0)} (${err(p.predicted.prefillTps, p.measured.prefillTps)}) | ${f(a.prefillTps, 0)} (${err(a.prefillTps, p.measured.prefillTps)}) | **${f(p.measured.prefillTps, 0)}** |`
})
const table = [
  '| model | params | MB | role | decode predicted (error) | decode calibrated (error) | decode measured [95% CI] | prefill predicted (error) | prefill calibrated (error) | prefill measured |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `Mean absolute percentage error on the ${held.length} held-out models (${[...new Set(held.map((p) => p.size))].join(', ')}):`,
  '',
  '| metric | before calibration | after calibration |',
  '|---|---|---|',
  `| decode tok/s | ${f(errors.decodeTps.before * 100)}% | ${f(errors.decodeTps.after * 100)}% |`,
  `| prefill tok/s | ${f(errors.prefillTps.before * 100)}% | ${f(errors.prefillTps.after * 100)}% |`,
].join('\n')

const result = {
  measured: true,
  date: started.toISOString(),
  command: 'pnpm exec tsx --conditions=@kerneltune/source tooling/scripts/predict-vs-measure.ts --doc',
  predictor: 'roofline',
  calibration: { method: 'ratio', factors: calib, calibratedOn: [...CALIBRATE] },
  hardware: { detected, spec },
  device: points[0]?.device,
  workload: { promptTokens: PROMPT, genTokens: GEN, combo: { threads: args.threads }, reps: REPS, warmups: 1 },
  points,
  errors,
}
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
writeFileSync(join(ROOT, 'bench', 'results', 'llamacpp-predict-vs-measure.json'), JSON.stringify(result, null, 2) + '\n')
console.log(table)
if (args.doc) {
  const { renderDoc } = await import('./predict-vs-measure-doc.ts')
  writeFileSync(join(ROOT, 'docs', 'prediction-vs-measurement.md'), renderDoc(result, table))
  console.error('wrote docs/prediction-vs-measurement.md')
}
