/**
 * The default benchmarker: times real WGSL kernels from `@kerneltune/gpu-kernels` through WebGPU.
 * Every measurement is verified against the CPU reference first (`benchmarkKernel` does it); a
 * config that is invalid for the problem, fails to compile or gives a wrong answer comes back as
 * `success: false` with the reason, and the tuner logs and skips it.
 *
 * How a Metal-style `KernelConfig` becomes a WGSL kernel and its parameters (documented in the
 * README too):
 * - bit width: 2 → q2_0, 3 → q3_0, 4 → q4_0, 8 → q8_0 (q2_0/q3_0 are gpu-kernels' own 32-weight
 *   block formats, not ggml's K-quants); other widths have no kernel (reported, skipped).
 * - variant: decode → the gemv kernel; prefill, base and large_batch → the tiled gemm kernel.
 *   prefill reads global memory, base and large_batch stage tiles in workgroup memory
 *   (`useSharedMemory`), which pays off only when more rows share each weight tile.
 * - simdgroups: a Metal threadgroup holds up to 32 simdgroups (1024 threads); WebGPU guarantees
 *   256 invocations, so each simdgroup becomes 8 invocations: 4/8/16 → 32/64/128 threads
 *   (gemv `workgroupSize`; gemm `(tileM/threadM)·(tileN/threadN)`, nearest achievable).
 * - tiles, gemm: `tileN` = tile_size_n / 2 and `tileM` = tile_size_m / 2 (nearest of 8..64),
 *   with `tileM` capped at the batch rounded up to a power of two (≥ 8), since a tile more than
 *   twice the batch only idles threads and gpu-kernels rejects it.
 * - tiles, gemv: decode has no M tiling; `rowsPerWorkgroup` = tile_size_n / 32 and `unroll` =
 *   tile_size_m / 32 (nearest allowed values), the unroll halved until each thread of a row has
 *   blocks to work on at this hidden size; `vecWidth` is 4 (vector loads).
 * - use_fp32_acc and batch_strategy have no counterpart: these kernels always accumulate in f32
 *   and a layer here is one matrix, not a set of experts. Configs that differ only in them map to
 *   the same kernel, which is measured once and the measurement shared (except with `fresh`, which
 *   the confirmation phase sets so that it never reuses a selection timing).
 * The problem is y = x·Wᵀ with m = batch, k = hidden, n = intermediate.
 */
import {
  benchmarkKernel,
  configKey,
  isValidConfig,
  type GpuContext,
  type KernelKind,
  type MatmulConfig,
  type MatmulProblem,
  type WeightFormat,
} from '@kerneltune/gpu-kernels'
import type { BenchmarkOptions, LayerBenchmarker } from '../benchmark.ts'
import { failedResult, rowThroughput } from '../benchmark.ts'
import { createBenchmarkResult, type BenchmarkResult, type KernelConfig } from '../kernel-config.ts'

const FORMAT_BY_BITS: Readonly<Record<number, WeightFormat>> = { 2: 'q2_0', 3: 'q3_0', 4: 'q4_0', 8: 'q8_0' }

function nearest(target: number, allowed: readonly number[]): number {
  let best = allowed[0]!
  for (const v of allowed) if (Math.abs(v - target) < Math.abs(best - target)) best = v
  return best
}

/** The gpu-kernels kernel, format and parameters for a config on a problem, or why there is none. */
export function mapConfig(c: KernelConfig, batch: number, hidden: number): { kind: KernelKind; format: WeightFormat; params: MatmulConfig } | { error: string } {
  const format = FORMAT_BY_BITS[c.bit_width]
  if (!format) return { error: `no kernel for ${c.bit_width}-bit weights on this backend (gpu-kernels has 2-, 3-, 4- and 8-bit formats)` }
  const threads = 8 * c.num_simdgroups
  if (c.kernel_variant === 'decode') {
    const rows = nearest(c.tile_size_n / 32, [1, 2, 4, 8])
    // Halve the unroll until a row has enough 32-weight blocks for every thread on it.
    const blocks = Math.floor(hidden / 32)
    let unroll = nearest(c.tile_size_m / 32, [1, 2, 4])
    while (unroll > 1 && (blocks % unroll !== 0 || (threads / rows) * unroll > blocks)) unroll /= 2
    return { kind: 'gemv', format, params: { workgroupSize: threads, rowsPerWorkgroup: rows, vecWidth: 4, unroll } }
  }
  const tiles = [8, 16, 32, 64]
  const batchCap = Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, batch))))
  const tileM = Math.min(nearest(c.tile_size_m / 2, tiles), batchCap)
  const tileN = nearest(c.tile_size_n / 2, tiles)
  // Thread sub-tiles whose thread count is closest to the target (in log scale), squarest first.
  let best = { threadM: 1, threadN: 1, score: Infinity }
  for (const threadM of [1, 2, 4]) {
    for (const threadN of [1, 2, 4]) {
      if (threadM > tileM || threadN > tileN) continue
      const n = (tileM / threadM) * (tileN / threadN)
      const score = Math.abs(Math.log2(n) - Math.log2(threads)) * 10 + Math.abs(threadM - threadN)
      if (score < best.score) best = { threadM, threadN, score }
    }
  }
  return {
    kind: 'gemm',
    format,
    params: { tileM, tileN, threadM: best.threadM, threadN: best.threadN, useSharedMemory: c.kernel_variant !== 'prefill' },
  }
}

export interface GpuBenchmarkerOptions {
  /** Seen before each real measurement (after the cache), e.g. for logging. */
  onKernel?: (kind: KernelKind, problem: MatmulProblem, params: MatmulConfig) => void
}

/** A `LayerBenchmarker` over an open WebGPU device (see `openGpu` in gpu-kernels). */
export function createGpuBenchmarker(gpu: GpuContext, options: GpuBenchmarkerOptions = {}): LayerBenchmarker {
  const cache = new Map<string, BenchmarkResult>()
  return async (config: KernelConfig, batch: number, hidden: number, intermediate: number, opts: BenchmarkOptions) => {
    const mapped = mapConfig(config, batch, hidden)
    if ('error' in mapped) return failedResult(config, batch, hidden, mapped.error)
    const problem: MatmulProblem = { format: mapped.format, m: batch, n: intermediate, k: hidden }
    const valid = isValidConfig(mapped.kind, mapped.format, mapped.params, problem, gpu.limits)
    if (valid !== true) return failedResult(config, batch, hidden, `${mapped.kind} ${configKey(mapped.params)} cannot run m=${batch} n=${intermediate} k=${hidden}: ${valid}`)
    const key = `${mapped.kind}|${mapped.format}|${batch}x${intermediate}x${hidden}|${opts.warmup}|${opts.iterations}|${configKey(mapped.params)}`
    const hit = opts.fresh ? undefined : cache.get(key)
    if (hit) return createBenchmarkResult({ ...hit, config })
    options.onKernel?.(mapped.kind, problem, mapped.params)
    const r = await benchmarkKernel(gpu, mapped.kind, problem, mapped.params, { warmup: opts.warmup, iterations: opts.iterations })
    const kernel = { kind: mapped.kind, format: mapped.format, params: mapped.params, max_abs_error: r.maxAbsError, gflops: r.gflops, samples: r.latencyMs.samples.length }
    let result: BenchmarkResult
    if (r.error) result = failedResult(config, batch, hidden, `${mapped.kind} ${configKey(mapped.params)}: ${r.error}`)
    else if (!r.correct) {
      result = failedResult(config, batch, hidden, `${mapped.kind} ${configKey(mapped.params)} gave a wrong result: max abs error ${r.maxAbsError} > tolerance ${r.tolerance}`)
    } else {
      result = createBenchmarkResult({
        config,
        batch_size: batch,
        hidden_dim: hidden,
        latency_ms: r.latencyMs.mean,
        throughput: rowThroughput(batch, hidden, r.latencyMs.mean),
        throughput_gbps: r.gbps,
        memory_bytes: r.bytesMoved,
        kernel,
      })
    }
    if (!opts.fresh) cache.set(key, result)
    return result
  }
}
