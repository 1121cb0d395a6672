/**
 * Timing one config through an injected benchmarker. Whatever goes wrong (no benchmarker, a
 * kernel that fails to compile, a wrong answer, a thrown error) becomes a result with
 * `success: false` and a message: a failed config is logged and skipped, never fatal.
 */
import { createBenchmarkResult, createKernelConfig, type BenchmarkResult, type KernelConfig } from './kernel-config.ts'

export interface BenchmarkOptions {
  readonly warmup: number
  readonly iterations: number
  /**
   * Measure anew even if this config was measured before: a benchmarker that caches results
   * must not answer from its cache (the confirmation phase needs timings that selection did not see).
   */
  readonly fresh?: boolean
}

/**
 * Times one config on a layer of `batch` rows, `hidden` inputs and `intermediate` outputs. The
 * default is `createGpuBenchmarker` (real WGSL kernels); tests inject fakes.
 */
export type LayerBenchmarker = (
  config: KernelConfig,
  batch: number,
  hidden: number,
  intermediate: number,
  options: BenchmarkOptions,
) => Promise<BenchmarkResult>

/** Upstream's estimate: 2bh + 2b·inter + sg·(2·tm·tn) + 8b bytes. */
export function estimateMemoryBytes(c: KernelConfig, batch: number, hidden: number, intermediate: number): number {
  return 2 * batch * hidden + 2 * batch * intermediate + c.num_simdgroups * (2 * c.tile_size_m * c.tile_size_n) + 8 * batch
}

/** Upstream's throughput: batch·hidden per second of mean latency. */
export function rowThroughput(batch: number, hidden: number, latencyMs: number): number {
  return latencyMs > 0 && Number.isFinite(latencyMs) ? (batch * hidden) / (latencyMs / 1000) : 0
}

export function failedResult(config: KernelConfig, batch: number, hidden: number, message: string): BenchmarkResult {
  return createBenchmarkResult({ config, batch_size: batch, hidden_dim: hidden, latency_ms: Infinity, success: false, error_msg: message })
}

/** Runs the benchmarker for one config; never throws. */
export async function benchmarkOne(
  benchmarker: LayerBenchmarker | undefined,
  config: KernelConfig,
  batch: number,
  hidden: number,
  intermediate: number,
  options: BenchmarkOptions,
): Promise<BenchmarkResult> {
  if (!benchmarker) return failedResult(config, batch, hidden, 'no benchmarker: pass one, e.g. createGpuBenchmarker(gpu)')
  try {
    const r = await benchmarker(config, batch, hidden, intermediate, options)
    if (r.success && !(Number.isFinite(r.latency_ms) && r.latency_ms > 0)) {
      return failedResult(config, batch, hidden, `benchmarker reported success with latency ${r.latency_ms} ms`)
    }
    return r
  } catch (err) {
    return failedResult(config, batch, hidden, err instanceof Error ? err.message : String(err))
  }
}

/**
 * A mixed-width layer (bits such as [2, 4]) is modelled as one expert per width sharing the
 * config's geometry: each width's kernel is timed with the same tiles, simdgroups and variant,
 * and the latencies add up. The result carries the config as given (the narrowest width).
 */
export async function benchmarkMixed(
  benchmarker: LayerBenchmarker | undefined,
  config: KernelConfig,
  bits: readonly number[],
  batch: number,
  hidden: number,
  intermediate: number,
  options: BenchmarkOptions,
): Promise<BenchmarkResult> {
  if (bits.length <= 1) return benchmarkOne(benchmarker, config, batch, hidden, intermediate, options)
  let latency = 0
  let bytes = 0
  let moved = 0
  for (const bw of bits) {
    const { kernel_name: _n, simdgroups: _s, ...geometry } = config
    const member = createKernelConfig({ ...geometry, bit_width: bw })
    const r = await benchmarkOne(benchmarker, member, batch, hidden, intermediate, options)
    if (!r.success) return failedResult(config, batch, hidden, `${bw}-bit member: ${r.error_msg}`)
    latency += r.latency_ms
    bytes += r.memory_bytes
    moved += r.throughput_gbps * 1e9 * (r.latency_ms / 1000)
  }
  return createBenchmarkResult({
    config,
    batch_size: batch,
    hidden_dim: hidden,
    latency_ms: latency,
    throughput: rowThroughput(batch, hidden, latency),
    memory_bytes: bytes,
    // Bytes moved by all members over their summed time; set explicitly so that the alias rule
    // does not copy the row throughput into it.
    throughput_gbps: moved / 1e9 / (latency / 1000),
  })
}
