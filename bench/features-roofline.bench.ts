/**
 * tinybench benchmark of feature building and roofline evaluation: the hot paths a predictor or a
 * sweep calls once per candidate configuration. Writes bench/results/features-roofline.json with
 * ops/s and latency per task, measured in this run on this machine.
 *
 *   pnpm bench features-roofline
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
import { featuresBuilder, featuresFrom, fromVector, getHardwarePreset, modelSpecFromPreset, toVector, validate } from '@kerneltune/features'
import { decodeBound, prefillBound, truenoRooflineBound } from '@kerneltune/roofline'


const model = modelSpecFromPreset('llama-3-8b', 'Q4_K')
const moe = modelSpecFromPreset('mixtral-8x7b', 'Q4_K')
const hardware = getHardwarePreset('h100-sxm')!
const workload = { batch: 8, contextLength: 2048 }
const built = featuresFrom({ model, hardware, workload })
const vector = toVector(built)
let sink = 0

const bench = new Bench({ time: 500, warmupTime: 100 })
bench
  .add('featuresBuilder().build() (raw inputs)', () => {
    sink += featuresBuilder().modelParamsB(7).hiddenDim(4096).numLayers(32).numHeads(32).batchSize(8).seqLen(2048).quantType('Q4K').gpuMemBwGbs(3350).build().modelParamsB
  })
  .add('featuresFrom(model, hardware, workload)', () => {
    sink += featuresFrom({ model, hardware, workload }).batchSizeNorm
  })
  .add('toVector + validate', () => {
    validate(built)
    sink += toVector(built).length
  })
  .add('fromVector(toVector(f))', () => {
    sink += fromVector(vector).modelParamsB
  })
  .add('truenoRooflineBound(vector)', () => {
    sink += truenoRooflineBound(vector)
  })
  .add('decodeBound (dense, KV at 2048)', () => {
    sink += decodeBound(model, hardware, { batch: 8, contextLength: 2048 }).boundTps
  })
  .add('decodeBound (MoE routing)', () => {
    sink += decodeBound(moe, hardware, { batch: 8, contextLength: 2048 }).boundTps
  })
  .add('prefillBound (512-token prompts)', () => {
    sink += prefillBound(model, hardware, { batch: 8, contextLength: 512 }).boundTps
  })

await bench.run()

const tasks = bench.tasks.map((t) => {
  const r = t.result
  if (r.state !== 'completed') throw new Error(`benchmark task ${t.name} did not complete: ${r.state}`)
  return {
    name: t.name,
    opsPerSec: r.throughput.mean,
    meanUs: r.latency.mean * 1000,
    p99Us: r.latency.p99 * 1000,
    rme: r.latency.rme,
    samples: r.latency.samplesCount,
  }
})
console.table(tasks.map((t) => ({ task: t.name, 'ops/s': Math.round(t.opsPerSec), 'mean µs': t.meanUs.toFixed(3), 'p99 µs': t.p99Us.toFixed(3), '±%': t.rme.toFixed(2) })))
const out = {
  benchmark: 'features-roofline',
  date: new Date().toISOString(),
  runtime: `node ${process.versions.node}`,
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', threads: os.cpus().length, platform: os.platform(), arch: os.arch() },
  settings: { timeMs: 500, warmupMs: 100 },
  inputs: { model: 'llama-3-8b Q4_K', moe: 'mixtral-8x7b Q4_K', hardware: 'h100-sxm', workload },
  tasks,
  checksum: sink,
}
const file = join(dirname(fileURLToPath(import.meta.url)), 'results', 'features-roofline.json')
mkdirSync(dirname(file), { recursive: true })
writeFileSync(file, JSON.stringify(out, null, 2) + '\n')
console.log(`wrote ${file}`)
