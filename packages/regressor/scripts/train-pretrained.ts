/**
 * Trains the pretrained throughput model shipped in assets/pretrained.json from the public
 * measurements in ../shared/data/llm_throughput, and writes assets/accuracy.md, the accuracy
 * table quoted in the README.
 *
 *   pnpm --filter @kerneltune/regressor train-pretrained [--data DIR] [--forest]
 *   (or: npx tsx --conditions=@kerneltune/source packages/regressor/scripts/train-pretrained.ts)
 *
 * Deterministic: rows are read in file order, the ridge solution is closed-form and the forest
 * (evaluated with --forest only, it is slow) has a fixed seed. Accuracy is leave-one-hardware-out:
 * every chip is predicted by a model trained without any of its rows, reported for decode and
 * prefill separately.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { leaveOneGroupOut, permutationImportance } from '../src/evaluate.ts'
import { LearnedModel, mapeOf, type TrainOptions, type TrainingSample } from '../src/learned.ts'
import { loadThroughputData } from './data-rows.ts'

export const SCRIPT_VERSION = '1.1.0'
const SEED = 42
const HERE = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const dataArg = args.indexOf('--data')
const DATA = resolve(dataArg >= 0 ? args[dataArg + 1]! : join(HERE, '../../../../shared/data/llm_throughput'))
const WITH_FOREST = args.includes('--forest')

if (!existsSync(DATA)) {
  console.error(`data folder not found: ${DATA} (pass --data DIR)`)
  process.exit(2)
}

const data = loadThroughputData(DATA)
const samples = data.samples
const LINEAR: TrainOptions = { kind: 'linear', lambda: 1, name: 'pretrained-ridge' }
const FOREST: TrainOptions = { kind: 'forest', forest: { nEstimators: 30, maxDepth: 8, minNumSamples: 3, maxFeatures: 0.8, seed: SEED } }

interface PhaseScores { decode: number; prefill: number; all: number; decodeRows: number; prefillRows: number }
function scores(idx: readonly number[], pred: readonly number[]): PhaseScores {
  const pick = (phase: string) => idx.filter((i) => (samples[i]!.query.phase ?? 'decode') === phase)
  const m = (ii: number[]) => (ii.length ? mapeOf(ii.map((i) => pred[i]!), ii.map((i) => samples[i]!.measuredTps)) : Number.NaN)
  const d = pick('decode')
  const p = pick('prefill')
  return { decode: m(d), prefill: m(p), all: m([...idx]), decodeRows: d.length, prefillRows: p.length }
}

function evaluate(opts: TrainOptions) {
  const t0 = Date.now()
  const r = leaveOneGroupOut(samples, opts)
  const all = samples.map((_, i) => i)
  const byHardware: Record<string, PhaseScores> = {}
  for (const g of Object.keys(r.byGroup)) byHardware[g] = scores(all.filter((i) => samples[i]!.group === g), r.predictions)
  // Timing goes to stderr only, so the asset is byte-identical from run to run.
  console.error(`${opts.kind} leave-one-hardware-out: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  return { overall: scores(all, r.predictions), byHardware }
}

console.error(`rows: ${samples.length} samples from ${data.files.map((f) => `${f.file} (${f.used}/${f.rows} rows used)`).join(', ')}`)
const linear = evaluate(LINEAR)
console.error(`ridge, leave-one-hardware-out: decode ${(linear.overall.decode * 100).toFixed(1)}%, prefill ${(linear.overall.prefill * 100).toFixed(1)}%`)
const forest = WITH_FOREST ? evaluate(FOREST) : undefined
if (forest) console.error(`forest, leave-one-hardware-out: decode ${(forest.overall.decode * 100).toFixed(1)}%, prefill ${(forest.overall.prefill * 100).toFixed(1)}%`)

// The shipped model is the ridge: it extrapolates to unseen hardware better than the forest (see accuracy.md).
const fitted = LearnedModel.train(samples, LINEAR)
const importance = permutationImportance(fitted, samples, { seed: SEED })
const ranges = (xs: number[]) => {
  const out: string[] = []
  const s = [...new Set(xs)].sort((a, b) => a - b)
  for (let i = 0; i < s.length; i++) {
    let j = i
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++
    out.push(i === j ? `${s[i]}` : `${s[i]}-${s[j]}`)
    i = j
  }
  return out.join(',')
}
const model = fitted.with({
  mape: linear.overall.all,
  importance,
  meta: {
    description: 'Ridge regression on log(measured / roofline bound), trained on public llama.cpp measurements; predicts llama.cpp-class throughput.',
    script: 'packages/regressor/scripts/train-pretrained.ts',
    scriptVersion: SCRIPT_VERSION,
    seed: SEED,
    lambda: LINEAR.lambda,
    trainedOn: data.files.map((f) => ({ file: f.file, rows: f.rows, used: f.used, samples: f.samples, excluded: f.excluded, usedRows: ranges(f.usedRows) })),
    sampleCount: samples.length,
    hardware: [...new Set(samples.map((s) => s.group!))],
    assumptions: [
      'XiongjieDai LLaMA 1/2 tables: pp taken as a 512-token prompt, tg as decode at context 64; the median of the three runs is used',
      'XiongjieDai LLaMA 3 "tg N": decode at mean context N/2; "pp N": a prompt of N tokens; Q4_K_M counted as Q4_K',
      'single-device rows only (multi-GPU rows use layer split); CPU-only and OOM rows dropped',
      'MoE active parameters from the model cards: gpt-oss-20b 3.6B, gpt-oss-120b 5.1B, Qwen3-Coder-30B-A3B 3.3B, GLM-4.7-Flash 3B',
      'features (v1.1): MoE expert-weight coverage at the batch, and KV-cache bytes ÷ weight bytes with KV per context token approximated as 128 KiB × √(active B / 8)',
    ],
    mapeIsLeaveOneHardwareOut: true,
    leaveOneHardwareOut: { ridge: linear, ...(forest ? { forest } : {}) },
  },
})

const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}%`)
const lines = [
  `Generated by \`packages/regressor/scripts/train-pretrained.ts\` v${SCRIPT_VERSION} (seed ${SEED}) from ${samples.length} samples ` +
    `(${data.files.filter((f) => f.used).map((f) => `${f.file}: ${f.used} of ${f.rows} rows`).join('; ')}).`,
  '',
  'Leave-one-hardware-out MAPE (each chip predicted by a model that never saw it):',
  '',
  '| model | decode MAPE | prefill MAPE | decode rows | prefill rows |',
  '|---|---|---|---|---|',
  `| ridge (shipped) | ${pct(linear.overall.decode)} | ${pct(linear.overall.prefill)} | ${linear.overall.decodeRows} | ${linear.overall.prefillRows} |`,
  ...(forest ? [`| random forest (30 trees, depth 8) | ${pct(forest.overall.decode)} | ${pct(forest.overall.prefill)} | ${forest.overall.decodeRows} | ${forest.overall.prefillRows} |`] : []),
  '',
  'Per hardware (ridge, held out):',
  '',
  '| hardware | decode MAPE | prefill MAPE | decode rows | prefill rows |',
  '|---|---|---|---|---|',
  ...Object.entries(linear.byHardware).map(([g, s]) => `| ${g} | ${pct(s.decode)} | ${pct(s.prefill)} | ${s.decodeRows} | ${s.prefillRows} |`),
  '',
]
const assets = join(HERE, '../assets')
mkdirSync(assets, { recursive: true })
writeFileSync(join(assets, 'pretrained.json'), JSON.stringify(model.toJSON()) + '\n')
writeFileSync(join(assets, 'accuracy.md'), lines.join('\n'))
console.log(lines.join('\n'))

export type { TrainingSample }
