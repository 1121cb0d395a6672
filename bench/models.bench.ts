/**
 * tinybench benchmark of the throughput models and the recommender: predictions per second for
 * trueno's heuristic, the pretrained ridge and a 100-tree random forest (trained here on every
 * 4th row of the public measurements; skipped when ../shared/data is absent), and one
 * BrickTuner.recommend call.
 * Writes bench/results/models.json, measured in this run on this machine.
 *
 *   pnpm bench models
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
import { featuresBuilder } from '@kerneltune/features'
import { LearnedModel, heuristicModel, pretrainedModel } from '@kerneltune/regressor'
import { loadThroughputData } from '../packages/regressor/scripts/data-rows.ts'
import { BrickTuner } from '@kerneltune/classifier'

const HERE = dirname(fileURLToPath(import.meta.url))
const DATA = join(HERE, '../../shared/data/llm_throughput')
const f = featuresBuilder().modelParamsB(8).batchSize(4).quantType('Q4K').gpuMemBwGbs(1008).gpuComputeTflops(330).build()
const q = { paramsB: 8, quant: 'Q4_K', memBwGbs: 1008, tflops: 330, batch: 4, phase: 'decode' as const }
const heuristic = heuristicModel()
const ridge = pretrainedModel()
let forest: LearnedModel | undefined
if (existsSync(DATA)) {
  const t0 = performance.now()
  // Every 4th row: training the 100-tree forest on all 1380 rows takes minutes with ml-random-forest.
  forest = LearnedModel.train(loadThroughputData(DATA).samples.filter((_, i) => i % 4 === 0), { kind: 'forest', forest: { nEstimators: 100, maxDepth: 10 } })
  console.error(`trained the 100-tree forest in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}
const tuner = new BrickTuner()
let sink = 0

const bench = new Bench({ time: 500, warmupTime: 100 })
bench
  .add('heuristic predict (42-vector)', () => { sink += heuristic.predict(f).predictedTps })
  .add('pretrained ridge predict (query)', () => { sink += ridge.predict(q).predictedTps })
  .add('BrickTuner.recommend (pretrained ridge + rules)', () => { sink += tuner.recommend(f).confidenceOverall })
if (forest) bench.add('random forest predict, 100 trees (query)', () => { sink += forest!.predict(q).predictedTps })
await bench.run()

const tasks = bench.tasks.map((t) => {
  const r = t.result as unknown as { throughput?: { mean: number }; latency?: { mean: number; p99: number; rme: number } }
  const meanMs = r.latency?.mean ?? Number.NaN
  return { name: t.name, opsPerSec: r.throughput?.mean ?? 1000 / meanMs, meanMs, p99Ms: r.latency?.p99 ?? Number.NaN }
})
console.table(tasks.map((t) => ({ task: t.name, 'ops/s': Math.round(t.opsPerSec), 'mean ms': t.meanMs.toFixed(4), 'p99 ms': t.p99Ms.toFixed(4) })))
const forestTask = tasks.find((t) => t.name.startsWith('random forest'))
const out = {
  bench: 'models', date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, cpus: os.cpus().length,
  tasks, forestUnder1ms: forestTask ? forestTask.meanMs < 1 : null, sink,
}
const file = join(HERE, 'results', 'models.json')
mkdirSync(dirname(file), { recursive: true })
writeFileSync(file, JSON.stringify(out, null, 2) + '\n')
console.log(`wrote ${file}`)
