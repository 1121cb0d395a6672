// @bench-runtime deno  (run-benches.mjs runs this file with `deno run -A`: Node has no WebGPU)
/**
 * The mixed bit-width autotuner on real WGSL kernels: tunes 4- and 8-bit layers over a few batch
 * and hidden sizes (all variants). Per cell it reports the winner's speed-up over the config that
 * selection would return without tuning (the default for the bit width) twice: on the selection
 * timings (biased upward: the winner's own noise helped it win) and from the confirmation phase,
 * where winner and default are re-timed afresh in randomly ordered paired rounds (geometric mean
 * of per-round ratios, 95% paired t interval on log ratios). The lookup table keeps the winner
 * only when that interval lies above 1. The median and slowest candidate are selection figures,
 * for scale. Writes bench/results/metal-marlin-autotune.json, with `uptime` at start and end.
 *
 *   deno run -A bench/metal-marlin-autotune.bench.ts
 *   deno run -A bench/metal-marlin-autotune.bench.ts --confirm-rounds 30
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { CONFIRM_METHOD, DEFAULT_CONFIRM_ROUNDS, closeGpu, openGpu } from '@kerneltune/gpu-kernels'
import { runAutotuneJob, type AutotuneEvent } from '@kerneltune/metal-marlin-autotune/webgpu'
import { loadSnapshot } from './support/load.ts'

const loadAtStart = loadSnapshot()
const roundsArg = process.argv.indexOf('--confirm-rounds')
const confirmRounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : DEFAULT_CONFIRM_ROUNDS
if (!Number.isInteger(confirmRounds) || confirmRounds < 2) {
  console.error(`--confirm-rounds expects a whole number ≥ 2, got "${process.argv[roundsArg + 1]}"`)
  process.exit(2)
}
const job = { bits: [4, 8], batchSizes: [1, 4, 16], hiddenSizes: [512, 1024], warmup: 3, iterations: 10, guideVariantsOnly: false, confirmRounds }
console.error(`${confirmRounds} confirmation rounds; ${loadAtStart.uptime}`)
const gpu = await openGpu()
const events: AutotuneEvent[] = []
const t0 = performance.now()
await runAutotuneJob(gpu, job, (e) => events.push(e))
const seconds = (performance.now() - t0) / 1000
const done = events.find((e) => e.event === 'done') as Extract<AutotuneEvent, { event: 'done' }>
console.error(`tuned and confirmed ${done.cells.length} cells (${done.statistics.total_benchmarks} selection benchmarks) on ${done.device_name} in ${seconds.toFixed(1)} s`)

const cells = done.cells.map((c) => {
  const k = c.confirmation
  const row = {
    bits: c.bits, batch: c.batch, hidden: c.hidden, tried: c.tried, skipped: c.failed,
    tuned: c.best && { config_id: c.best.config_id, latency_ms: c.best.latency_ms, kernel: c.best.kernel },
    default: c.default,
    selection_speedup_vs_default: c.selection_speedup,
    confirmed: k && {
      speedup: k.speedup, low: k.low, high: k.high, level: k.level, verdict: k.verdict, rounds: k.rounds,
      default_median_ms: k.baselineMedianMs, tuned_median_ms: k.candidateMedianMs,
      default_ms: k.baselineMs, tuned_ms: k.candidateMs, first_in_round: k.firstInRound,
    },
    kept: c.kept,
    ...(c.confirm_error ? { confirm_error: c.confirm_error } : {}),
    selection_speedup_vs_median: c.best && c.median_ms ? c.median_ms / c.best.latency_ms : null,
    selection_speedup_vs_worst: c.best && c.worst_ms ? c.worst_ms / c.best.latency_ms : null,
  }
  const confirmed = k ? `confirmed ×${k.speedup.toFixed(2)} [${k.low.toFixed(2)}, ${k.high.toFixed(2)}] ${k.verdict}` : c.kept === 'default' ? 'default won selection' : `not confirmed${c.confirm_error ? `: ${c.confirm_error}` : ''}`
  console.error(`${c.bits.join(',')}-bit b${c.batch} h${c.hidden}: tuned ${c.best?.latency_ms.toFixed(3)} ms (${c.best?.config_id}); default ${c.default?.latency_ms?.toFixed(3) ?? 'n/a'} ms (${c.default?.config_id}); selection ×${c.selection_speedup?.toFixed(2) ?? '-'} (biased), ${confirmed}; kept ${c.kept}`)
  return row
})
await closeGpu(gpu)
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'metal-marlin-autotune.json')
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify({
  benchmark: 'metal-marlin-autotune', date: new Date().toISOString(),
  runtime: `deno ${(globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno ?? 'unknown'}`,
  device: done.device_name, job, seconds,
  confirmation: { rounds: confirmRounds, method: CONFIRM_METHOD, perRound: `warm-ups ${job.warmup} + ${job.iterations} timed runs of each config (verified against the CPU reference first); the round's value is their mean, as in selection` },
  load: { start: loadAtStart, end: loadSnapshot() },
  statistics: done.statistics, cells,
}, null, 2) + '\n')
console.error(`wrote ${out}`)
