/**
 * Predictions are computed, not measured: this script recomputes, with the regressor of the
 * checkout it runs in, the predictions next to a GPU kit run's llama-bench measurements
 * (bench/results/gpu/predict-vs-measure.json), so a new model version can be judged against the
 * same H100 figures without a GPU. The model shapes come from `model synth --dry-run` with the
 * kit's own arguments; the hardware from the preset the kit used.
 *
 *   npx tsx --conditions=@kerneltune/source bench/gpu/repredict.ts [RESULTS.json] [OUT.json]
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { parseWith } from '@kerneltune/core'
import { main } from '@kerneltune/cli'
import { z } from 'zod'
import { machineDevice } from '@kerneltune/serving/node'
import { compare, type ModelResult } from './kit-models.ts'
import { presetForGpu } from './kit-plan.ts'
import { checkoutState } from './kit-provenance.ts'

// What this script reads of `model synth --dry-run --json` and `predict --json` (the CLI's documented shapes).
const SynthJson = z.looseObject({
  params: z.number(), activeParams: z.number().optional(),
  shape: z.looseObject({ hidden: z.number(), layers: z.number(), heads: z.number(), kvHeads: z.number(), vocab: z.number() }),
})
const PredictJson = z.looseObject({
  predictedTps: z.number(), interval: z.looseObject({ low: z.number(), high: z.number() }).optional(), rooflineTps: z.number().optional(),
  capped: z.boolean().optional(), extrapolation: z.array(z.string()).optional(), model: z.string(), modelVersion: z.union([z.string(), z.number()]),
})

async function cliJson<T>(argv: string[], schema: z.ZodType<T>): Promise<T> {
  let out = ''
  const code = await main(argv, { stdout: (t) => void (out += t), stderr: () => {}, interactive: false, env: process.env, cwd: process.cwd() })
  if (code !== 0) throw new Error(`kerneltune ${argv.join(' ')} exited ${code}: ${out.slice(0, 300)}`)
  return parseWith(schema, JSON.parse(out), `kerneltune ${argv[0]} --json`)
}

const [input = 'bench/results/gpu/predict-vs-measure.json', output = 'bench/results/gpu/repredict.json'] = process.argv.slice(2)
const run = JSON.parse(readFileSync(input, 'utf8')) as { device: Record<string, unknown> & { gpu: { name: string } }; bench: { promptTokens: number; genTokens: number }; models: ModelResult[] }
const preset = presetForGpu(run.device.gpu.name)
if (!preset) throw new Error(`no hardware preset for ${run.device.gpu.name}`)
const rows = []
for (const m of run.models) {
  const synth = await cliJson(['model', 'synth', ...m.model.synthArgs, '--quant', m.model.quant, '--out', '/dev/null/x.gguf', '--dry-run', '--json'], SynthJson)
  const s = synth.shape
  const shape = ['--params-b', String(synth.params / 1e9), ...(synth.activeParams && synth.activeParams !== synth.params ? ['--active-params-b', String(synth.activeParams / 1e9)] : []),
    '--quant', m.model.quant, '--hidden-dim', String(s.hidden), '--layers', String(s.layers), '--heads', String(s.heads), '--kv-heads', String(s.kvHeads), '--vocab', String(s.vocab),
    '--hardware', preset, '--backend', 'cuda', '--json']
  const dec = await cliJson(['predict', ...shape, '--context', String(Math.round(run.bench.genTokens / 2))], PredictJson)
  const pre = await cliJson(['predict', ...shape, '--phase', 'prefill', '--prompt-tokens', String(run.bench.promptTokens)], PredictJson)
  const p = (j: z.output<typeof PredictJson>) => ({ tps: j.predictedTps, low: j.interval?.low, high: j.interval?.high, rooflineTps: j.rooflineTps, capped: j.capped, ...(j.extrapolation ? { extrapolation: j.extrapolation } : {}) })
  rows.push({ model: m.model.id, kitPrediction: { decode: m.decode?.predicted, prefill: m.prefill?.predicted }, decode: compare(p(dec), m.decode?.measured ?? null), prefill: compare(p(pre), m.prefill?.measured ?? null), model_version: dec.model, modelVersion: String(dec.modelVersion) })
}
const versions = [...new Set(rows.map((r) => r.modelVersion))]
const doc = {
  what: `predictions (not measurements) recomputed with this checkout's regressor for the models of ${input}, against its llama-bench measurements on ${run.device.gpu.name}; hardware preset ${preset}, backend cuda`,
  computedAt: new Date().toISOString(),
  // Issue 34: which regressor predicted, the exact command, the checkout, where the predictions
  // were computed and the device the measurements are from.
  predictedBy: versions.length === 1 ? versions[0] : versions,
  argv: process.argv,
  kerneltune: checkoutState(process.cwd()),
  computedOn: machineDevice(),
  measuredOn: run.device,
  rows,
}
writeFileSync(output, `${JSON.stringify(doc, null, 2)}\n`)
const f = (x?: number) => (x === undefined ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`)
for (const r of rows) console.log(`${r.model}\tdecode ${r.decode.predicted?.tps.toFixed(0)} [${r.decode.predicted?.low?.toFixed(0)}–${r.decode.predicted?.high?.toFixed(0)}] vs ${r.decode.measured?.tps.toFixed(0)} ${f(r.decode.error)} ${r.decode.insideInterval ? 'in' : 'out'}\tprefill ${r.prefill.predicted?.tps.toFixed(0)} vs ${r.prefill.measured?.tps.toFixed(0)} ${f(r.prefill.error)} ${r.prefill.insideInterval ? 'in' : 'out'}`)
