// @bench-runtime deno  (run-benches.mjs runs this file with `deno run -A`: Node has no WebGPU)
/**
 * For each kernel kind and weight format: tune over a small search (an even sample of the valid
 * configurations plus the default, each verified against the CPU reference before it is timed),
 * and report the tuned configuration's speed against the default and its fraction of a copy
 * kernel's bandwidth measured on the same device in the same run.
 * Writes bench/results/gpu-kernels.json.
 *
 *   deno run -A bench/gpu-kernels.bench.ts            # sizes for lavapipe (CPU)
 *   deno run -A bench/gpu-kernels.bench.ts --large    # LLM-sized problems, for real GPUs
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { KERNEL_KINDS, WEIGHT_FORMATS, configKey, deviceName, measureCopyBandwidth, openGpu, tuneKernel, type KernelBenchResult, type KernelKind } from '../packages/gpu-kernels/src/index.ts'

const large = process.argv.includes('--large')
const SIZES: Record<KernelKind, { m: number; n: number; k: number }> = large
  ? { gemv: { m: 1, n: 4096, k: 4096 }, gemm: { m: 128, n: 4096, k: 4096 } }
  : { gemv: { m: 1, n: 2048, k: 2048 }, gemm: { m: 64, n: 512, k: 1024 } }
const timing = { warmup: 3, iterations: 10 }
const maxConfigs = 16

const gpu = await openGpu()
const name = deviceName(gpu)
console.error(`device: ${name}; timing: ${gpu.hasTimestamps ? 'timestamp queries' : 'wall clock'}`)
const copy = await measureCopyBandwidth(gpu, large ? 256 << 20 : 32 << 20, timing)
console.error(`copy ceiling: ${copy.gbps.toFixed(2)} GB/s (${copy.bytes >> 20} MiB, median of ${timing.iterations})`)

const brief = (r?: KernelBenchResult) => r && {
  config: r.config, correct: r.correct, maxAbsError: r.maxAbsError, tolerance: r.tolerance, timing: r.timing,
  latencyMs: { median: r.latencyMs.median, mean: r.latencyMs.mean, min: r.latencyMs.min }, gbps: r.gbps, gflops: r.gflops, bytesMoved: r.bytesMoved,
}
const entries = []
for (const kind of KERNEL_KINDS) {
  for (const format of WEIGHT_FORMATS) {
    const problem = { format, ...SIZES[kind] }
    const t0 = performance.now()
    const t = await tuneKernel(gpu, kind, problem, { ...timing, maxConfigs })
    const entry = {
      kind, format, problem, tried: t.tried, correct: t.correct,
      default: brief(t.default), tuned: brief(t.best), speedup: t.speedup,
      defaultFractionOfCopy: t.default?.correct ? t.default.gbps / copy.gbps : undefined,
      tunedFractionOfCopy: t.best ? t.best.gbps / copy.gbps : undefined,
      failures: t.results.filter((r) => !r.correct).map((r) => ({ config: configKey(r.config), error: r.error })),
    }
    entries.push(entry)
    console.log(`${kind} ${format} ${problem.m}x${problem.n}x${problem.k}: ${t.correct}/${t.tried} correct; default ${t.default?.latencyMs.median.toFixed(3)} ms, tuned ${t.best?.latencyMs.median.toFixed(3)} ms (${t.speedup?.toFixed(2)}x), ${t.best?.gbps.toFixed(2)} GB/s = ${(100 * (entry.tunedFractionOfCopy ?? 0)).toFixed(1)}% of copy; best ${t.best ? configKey(t.best.config) : '-'} [${((performance.now() - t0) / 1000).toFixed(1)} s]`)
  }
}
gpu.device.destroy()

const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'gpu-kernels.json')
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify({
  benchmark: 'gpu-kernels', date: new Date().toISOString(),
  runtime: `deno ${(globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno ?? 'unknown'}`,
  device: { name, adapterInfo: gpu.adapterInfo, hasTimestamps: gpu.hasTimestamps, hasF16: gpu.hasF16, limits: gpu.limits },
  timing, maxConfigs, sizes: SIZES, copy, entries,
}, null, 2) + '\n')
console.error(`wrote ${out}`)
