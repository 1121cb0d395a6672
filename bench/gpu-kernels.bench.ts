// @bench-runtime deno  (run-benches.mjs runs this file with `deno run -A`: Node has no WebGPU)
/**
 * For each kernel kind and weight format: tune over a small search (an even sample of the valid
 * configurations plus the default, each verified against the CPU reference before it is timed),
 * then confirm: the winner and the default re-timed afresh in randomly ordered paired rounds. It
 * reports both speed-ups, the selection one (biased upward: the winner's own noise helped it win)
 * and the confirmed one with its 95% interval, which decides whether the tuned config is kept, and
 * the fraction of a copy kernel's bandwidth measured on the same device in the same run.
 * Writes bench/results/gpu-kernels.json, with the load average (`uptime`) at start and end.
 *
 *   deno run -A bench/gpu-kernels.bench.ts                      # sizes for lavapipe (CPU)
 *   deno run -A bench/gpu-kernels.bench.ts --confirm-rounds 30  # more rounds, a tighter interval
 *   deno run -A bench/gpu-kernels.bench.ts --large              # LLM-sized problems, for real GPUs
 *   deno run -A bench/gpu-kernels.bench.ts --kind gemm --out gpu-kernels-gemm-rerun.json  # one kind, another file
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { CONFIRM_METHOD, DEFAULT_CONFIRM_ROUNDS, KERNEL_KINDS, WEIGHT_FORMATS, closeGpu, configKey, deviceName, measureCopyBandwidth, openGpu, tuneKernel, type KernelBenchResult, type KernelKind } from '@kerneltune/gpu-kernels'
import { loadSnapshot } from './support/load.ts'

const loadAtStart = loadSnapshot()
const started = performance.now()
const large = process.argv.includes('--large')
const roundsArg = process.argv.indexOf('--confirm-rounds')
const confirmRounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : DEFAULT_CONFIRM_ROUNDS
if (!Number.isInteger(confirmRounds) || confirmRounds < 2) {
  console.error(`--confirm-rounds expects a whole number ≥ 2, got "${process.argv[roundsArg + 1]}"`)
  process.exit(2)
}
const argValue = (flag: string) => (process.argv.indexOf(flag) > 0 ? process.argv[process.argv.indexOf(flag) + 1] : undefined)
const kindArg = argValue('--kind')
if (kindArg !== undefined && !KERNEL_KINDS.includes(kindArg as KernelKind)) {
  console.error(`--kind expects one of ${KERNEL_KINDS.join(', ')}, got "${kindArg}"`)
  process.exit(2)
}
const kinds: readonly KernelKind[] = kindArg ? [kindArg as KernelKind] : KERNEL_KINDS
const outName = argValue('--out') ?? 'gpu-kernels.json'
if (!/^[\w.-]+\.json$/.test(outName)) {
  console.error(`--out expects a file name ending in .json (written under bench/results/), got "${outName}"`)
  process.exit(2)
}
const SIZES: Record<KernelKind, { m: number; n: number; k: number }> = large
  ? { gemv: { m: 1, n: 4096, k: 4096 }, gemm: { m: 128, n: 4096, k: 4096 } }
  : { gemv: { m: 1, n: 2048, k: 2048 }, gemm: { m: 64, n: 512, k: 1024 } }
const timing = { warmup: 3, iterations: 10 }
const maxConfigs = 16

const gpu = await openGpu()
const name = deviceName(gpu)
console.error(`device: ${name}; timing: ${gpu.hasTimestamps ? 'timestamp queries' : 'wall clock'}; ${confirmRounds} confirmation rounds; ${loadAtStart.uptime}`)
const copy = await measureCopyBandwidth(gpu, large ? 256 << 20 : 32 << 20, timing)
console.error(`copy ceiling: ${copy.gbps.toFixed(2)} GB/s (${copy.bytes >> 20} MiB, median of ${timing.iterations})`)

const brief = (r?: KernelBenchResult) => r && {
  config: r.config, correct: r.correct, maxAbsError: r.maxAbsError, tolerance: r.tolerance, timing: r.timing,
  latencyMs: { median: r.latencyMs.median, mean: r.latencyMs.mean, min: r.latencyMs.min }, gbps: r.gbps, gflops: r.gflops, bytesMoved: r.bytesMoved,
}
const entries = []
for (const kind of kinds) {
  for (const format of WEIGHT_FORMATS) {
    const problem = { format, ...SIZES[kind] }
    const t0 = performance.now()
    const t = await tuneKernel(gpu, kind, problem, { ...timing, maxConfigs, confirmRounds })
    const c = t.confirmation
    const entry = {
      kind, format, problem, tried: t.tried, correct: t.correct,
      default: brief(t.default), tuned: brief(t.best),
      selectionSpeedup: t.selectionSpeedup,
      confirmation: c && {
        speedup: c.speedup, low: c.low, high: c.high, level: c.level, verdict: c.verdict, rounds: c.rounds,
        defaultMedianMs: c.baselineMedianMs, tunedMedianMs: c.candidateMedianMs,
        defaultMs: c.baselineMs, tunedMs: c.candidateMs, firstInRound: c.firstInRound,
      },
      speedup: t.speedup, keep: t.keep,
      defaultFractionOfCopy: t.default?.correct ? t.default.gbps / copy.gbps : undefined,
      tunedFractionOfCopy: t.best ? t.best.gbps / copy.gbps : undefined,
      failures: t.results.filter((r) => !r.correct).map((r) => ({ config: configKey(r.config), error: r.error })),
    }
    entries.push(entry)
    const confirmed = c ? `confirmed ${c.speedup.toFixed(2)}x [${c.low.toFixed(2)}, ${c.high.toFixed(2)}] ${c.verdict}` : t.speedup === 1 ? 'default won selection' : 'not confirmed'
    console.log(`${kind} ${format} ${problem.m}x${problem.n}x${problem.k}: ${t.correct}/${t.tried} correct; default ${t.default?.latencyMs.median.toFixed(3)} ms, tuned ${t.best?.latencyMs.median.toFixed(3)} ms; selection ${t.selectionSpeedup?.toFixed(2)}x (biased), ${confirmed}; keep ${t.keep}; ${t.best?.gbps.toFixed(2)} GB/s = ${(100 * (entry.tunedFractionOfCopy ?? 0)).toFixed(1)}% of copy; best ${t.best ? configKey(t.best.config) : '-'} [${((performance.now() - t0) / 1000).toFixed(1)} s]`)
  }
}
await closeGpu(gpu)

const out = join(dirname(fileURLToPath(import.meta.url)), 'results', outName)
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify({
  benchmark: 'gpu-kernels', date: new Date().toISOString(),
  runtime: `deno ${(globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno ?? 'unknown'}`,
  device: { name, adapterInfo: gpu.adapterInfo, hasTimestamps: gpu.hasTimestamps, hasF16: gpu.hasF16, limits: gpu.limits },
  kinds, timing, maxConfigs, confirmation: { rounds: confirmRounds, method: CONFIRM_METHOD, perRound: `warm-ups ${timing.warmup} + ${timing.iterations} timed runs of each config; the round's value is their median` },
  load: { start: loadAtStart, end: loadSnapshot() }, seconds: (performance.now() - started) / 1000,
  sizes: SIZES, copy, entries,
}, null, 2) + '\n')
console.error(`wrote ${out}`)
