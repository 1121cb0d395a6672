/**
 * One autotuning run on a WebGPU device, described by a JSON-safe job and reporting JSON-safe
 * events: what the Deno script runs for the CLI (Node has no WebGPU), and what the Deno test
 * calls directly.
 */
import { deviceName, type GpuContext } from '@kerneltune/gpu-kernels'
import { DEFAULT_CONFIRM_ROUNDS, type SpeedupConfirmation } from '@kerneltune/stats'
import { generateCompatConfigs, recommendedFp32Acc, recommendedVariant } from '../config-generation.ts'
import type { BitWidth, KernelVariant } from '../constants.ts'
import type { CellConfirmation } from '../confirm-cell.ts'
import { configId, type BenchmarkResult, type KernelConfig } from '../kernel-config.ts'
import type { ExportedConfig } from '../serialization.ts'
import { MixedBpwAutoTuner } from '../tuner.ts'
import type { AutotuneStatistics } from '../tuner-support.ts'
import { createGpuBenchmarker } from './gpu-benchmarker.ts'

export interface AutotuneJob {
  bits: number[]
  batchSizes: number[]
  hiddenSizes: number[]
  warmup: number
  iterations: number
  /** Only the guide's variant for each batch (decode 1, prefill 2–16, …) instead of all of them. */
  guideVariantsOnly?: boolean
  /** Also tune the combined bit tuple of `bits` (a mixed layer, one expert per width). */
  mixed?: boolean
  /** intermediate = multiplier · hidden (upstream: 4). */
  intermediateMultiplier?: number
  /**
   * Paired rounds re-timing each cell's winner against its default afresh (default 20; 0 turns
   * confirmation off). The table keeps the winner only when the fresh 95% interval lies above 1.
   */
  confirmRounds?: number
}

export interface CellSummary {
  bits: number[]
  batch: number
  hidden: number
  tried: number
  failed: number
  /** Median and slowest mean latency over the successful configs of the cell (null if none). */
  median_ms: number | null
  worst_ms: number | null
  best: null | {
    config_id: string
    kernel_name: string
    latency_ms: number
    throughput_gbps: number
    kernel?: BenchmarkResult['kernel']
  }
  /** The cell's default config and its selection-time mean latency (null when confirmation is off). */
  default: null | { config_id: string; success: boolean; latency_ms: number | null; error?: string }
  /** default / best on the selection timings: biased upward (winner's curse). */
  selection_speedup: number | null
  /** The winner and the default re-timed afresh, interleaved; its speedup is the one to report. */
  confirmation: SpeedupConfirmation | null
  /** What the lookup table holds: 'tuned' only when confirmed faster (or the default cannot run). */
  kept: 'tuned' | 'default' | null
  confirm_error?: string
}

export type AutotuneEvent =
  | { event: 'start'; device_name: string; total: number; timing: 'timestamp' | 'wall' }
  | { event: 'progress'; done: number; total: number; config_id: string; bits: number[]; batch: number; hidden: number; success: boolean; latency_ms: number | null; error?: string }
  | { event: 'log'; message: string }
  | { event: 'done'; device_name: string; config: ExportedConfig; cells: CellSummary[]; statistics: AutotuneStatistics; seconds: number }

/** The candidate configs of a cell: compat tiles and simdgroups, variants per the job. */
export function jobConfigs(job: AutotuneJob, bits: readonly number[], batch: number, hidden: number): KernelConfig[] {
  const variants: KernelVariant[] = job.guideVariantsOnly
    ? [recommendedVariant(batch)]
    : ['decode', 'prefill', 'base', ...(batch > 32 ? (['large_batch'] as const) : [])]
  return generateCompatConfigs([bits[0] as BitWidth], { variants, useFp32Acc: recommendedFp32Acc(hidden) })
}

export function totalConfigs(job: AutotuneJob): number {
  const sets = bitSets(job)
  let n = 0
  for (const s of sets) for (const b of job.batchSizes) for (const h of job.hiddenSizes) n += jobConfigs(job, s, b, h).length
  return n
}

function bitSets(job: AutotuneJob): number[][] {
  const singles = job.bits.map((b) => [b])
  return job.mixed && job.bits.length > 1 ? [...singles, [...job.bits].sort((a, b) => a - b)] : singles
}

function spread(results: readonly BenchmarkResult[]): { median_ms: number | null; worst_ms: number | null } {
  const ms = results.filter((r) => r.success).map((r) => r.latency_ms).sort((a, b) => a - b)
  if (ms.length === 0) return { median_ms: null, worst_ms: null }
  const mid = ms.length >> 1
  return { median_ms: ms.length % 2 ? ms[mid]! : (ms[mid - 1]! + ms[mid]!) / 2, worst_ms: ms[ms.length - 1]! }
}

function confirmedSummary(c: CellConfirmation | undefined): Pick<CellSummary, 'default' | 'selection_speedup' | 'confirmation' | 'kept' | 'confirm_error'> {
  if (!c) return { default: null, selection_speedup: null, confirmation: null, kept: null }
  const d = c.default
  return {
    default: { config_id: configId(d.config), success: d.success, latency_ms: d.success ? d.latency_ms : null, ...(d.success ? {} : { error: d.error_msg }) },
    selection_speedup: c.selectionSpeedup,
    confirmation: c.confirmation,
    kept: c.kept,
    ...(c.error ? { confirm_error: c.error } : {}),
  }
}

export async function runAutotuneJob(gpu: GpuContext, job: AutotuneJob, emit: (e: AutotuneEvent) => void): Promise<MixedBpwAutoTuner> {
  const started = performance.now()
  const name = deviceName(gpu)
  const tuner = new MixedBpwAutoTuner({
    deviceName: name,
    warmupIterations: job.warmup,
    benchmarkIterations: job.iterations,
    benchmarker: createGpuBenchmarker(gpu),
    log: (message) => emit({ event: 'log', message }),
  })
  emit({ event: 'start', device_name: name, total: totalConfigs(job), timing: gpu.hasTimestamps ? 'timestamp' : 'wall' })
  const mult = job.intermediateMultiplier ?? 4
  const cells = await tuner.benchmarkAll({
    bitSets: bitSets(job),
    batchSizes: job.batchSizes,
    hiddenSizes: job.hiddenSizes,
    intermediateFor: (h) => mult * h,
    configsFor: (bits, batch, hidden) => jobConfigs(job, bits, batch, hidden),
    warmup: job.warmup,
    iterations: job.iterations,
    confirmRounds: job.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS,
    onProgress: (done, total, r, bits) =>
      emit({
        event: 'progress', done, total, config_id: configId(r.config), bits: [...bits], batch: r.batch_size, hidden: r.hidden_dim,
        success: r.success, latency_ms: Number.isFinite(r.latency_ms) ? r.latency_ms : null, ...(r.success ? {} : { error: r.error_msg }),
      }),
  })
  emit({
    event: 'done',
    device_name: name,
    config: tuner.toExported(),
    cells: cells.map((c) => ({
      bits: [...c.bits], batch: c.batch, hidden: c.hidden, tried: c.results.length, failed: c.results.filter((r) => !r.success).length,
      ...spread(c.results),
      best: c.best && {
        config_id: configId(c.best.config), kernel_name: c.best.config.kernel_name, latency_ms: c.best.latency_ms,
        throughput_gbps: c.best.throughput_gbps, ...(c.best.kernel ? { kernel: c.best.kernel } : {}),
      },
      ...confirmedSummary(c.confirmed),
    })),
    statistics: tuner.statistics(),
    seconds: (performance.now() - started) / 1000,
  })
  return tuner
}
