// @bench-runtime deno  (run-benches.mjs runs this file with `deno run -A`: Node has no WebGPU)
/**
 * The mixed bit-width autotuner on real WGSL kernels: tunes 4- and 8-bit layers over a few batch
 * and hidden sizes (all variants), then, in the same run and on the same device, times the config
 * that selection would return without tuning (the default for the bit width) and reports the
 * tuned/default speed ratio per cell, with the median and slowest candidate for scale.
 * Writes bench/results/metal-marlin-autotune.json.
 *
 *   deno run -A bench/metal-marlin-autotune.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openGpu } from '../packages/gpu-kernels/src/index.ts'
import { MixedBpwAutoTuner, configId, defaultConfig, DEFAULT_SIMDGROUP_MAPPING, DEFAULT_TILE_SIZE_MAPPING } from '../packages/metal-marlin-autotune/src/index.ts'
import { createGpuBenchmarker, runAutotuneJob, type AutotuneEvent } from '../packages/metal-marlin-autotune/src/adapters/webgpu.ts'

const job = { bits: [4, 8], batchSizes: [1, 4, 16], hiddenSizes: [512, 1024], warmup: 3, iterations: 10, guideVariantsOnly: false }
const gpu = await openGpu()
const events: AutotuneEvent[] = []
const t0 = performance.now()
await runAutotuneJob(gpu, job, (e) => events.push(e))
const seconds = (performance.now() - t0) / 1000
const done = events.find((e) => e.event === 'done') as Extract<AutotuneEvent, { event: 'done' }>
console.error(`tuned ${done.statistics.total_benchmarks} configs on ${done.device_name} in ${seconds.toFixed(1)} s`)

// The untuned answer: the default config, timed with the same benchmarker settings.
const probe = new MixedBpwAutoTuner({ benchmarker: createGpuBenchmarker(gpu), warmupIterations: job.warmup, benchmarkIterations: job.iterations })
const mappings = { tileSizeMapping: DEFAULT_TILE_SIZE_MAPPING, simdgroupMapping: DEFAULT_SIMDGROUP_MAPPING }
const cells = []
for (const c of done.cells) {
  const def = defaultConfig(c.batch, c.bits, mappings)
  const r = await probe.benchmarkConfig(def, c.batch, c.hidden)
  const row = {
    bits: c.bits, batch: c.batch, hidden: c.hidden, tried: c.tried, skipped: c.failed,
    tuned: c.best && { config_id: c.best.config_id, latency_ms: c.best.latency_ms, kernel: c.best.kernel },
    default: { config_id: configId(def), success: r.success, latency_ms: r.success ? r.latency_ms : null, error: r.error_msg || undefined },
    speedup_vs_default: c.best && r.success ? r.latency_ms / c.best.latency_ms : null,
    speedup_vs_median: c.best && c.median_ms ? c.median_ms / c.best.latency_ms : null,
    speedup_vs_worst: c.best && c.worst_ms ? c.worst_ms / c.best.latency_ms : null,
  }
  cells.push(row)
  console.error(`${c.bits.join(',')}-bit b${c.batch} h${c.hidden}: tuned ${row.tuned?.latency_ms.toFixed(3)} ms (${row.tuned?.config_id}); default ${row.default.latency_ms?.toFixed(3) ?? 'n/a'} ms; ×${row.speedup_vs_default?.toFixed(2) ?? '-'} vs default, ×${row.speedup_vs_median?.toFixed(2)} vs median`)
}
gpu.device.destroy()
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'metal-marlin-autotune.json')
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify({ device: done.device_name, job, seconds, statistics: done.statistics, cells }, null, 2) + '\n')
console.error(`wrote ${out}`)
