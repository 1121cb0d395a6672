/** Option and result types of the tuner, and the two small searches it delegates. */
import type { CellConfirmation } from './confirm-cell.ts'
import type { BenchmarkResult, KernelConfig, OptimizedConfig } from './kernel-config.ts'

export interface BenchmarkLayerOptions {
  /** The layer's bit widths, e.g. [4] or [2, 4] for a mixed layer. */
  bits: readonly number[]
  batch: number
  hidden: number
  /** Output features; default 4·hidden as upstream. */
  intermediate?: number | undefined
  /** Candidates; default `generateCompatConfigs` for the narrowest width. */
  configs?: readonly KernelConfig[]
  warmup?: number | undefined
  iterations?: number | undefined
  onResult?: (result: BenchmarkResult) => void
}

export interface BenchmarkAllOptions {
  /** One entry per lookup key: [4], [8], [2, 4]… */
  bitSets: readonly (readonly number[])[]
  batchSizes: readonly number[]
  hiddenSizes: readonly number[]
  intermediateFor?: (hidden: number) => number
  configsFor?: (bits: readonly number[], batch: number, hidden: number) => KernelConfig[]
  warmup?: number
  iterations?: number
  /**
   * Paired rounds re-timing each cell's winner against its default afresh (confirm-cell.ts); the
   * table then keeps the winner only when the fresh interval lies above 1. Default 0 (off, as
   * upstream); the WebGPU job and the CLI turn it on.
   */
  confirmRounds?: number
  confirmSeed?: number
  onProgress?: (done: number, total: number, last: BenchmarkResult, bits: readonly number[]) => void
}

export interface CellResult {
  readonly bits: readonly number[]
  readonly batch: number
  readonly hidden: number
  readonly results: readonly BenchmarkResult[]
  /** The fastest successful result in selection; null when every config failed. */
  readonly best: BenchmarkResult | null
  /** The confirmation phase, when `confirmRounds` > 0 and a config succeeded. */
  readonly confirmed?: CellConfirmation
}

export interface AutotuneStatistics {
  device: string
  device_name: string
  device_family: string
  config_path: string
  total_benchmarks: number
  lookup_table_entries: number
  adaptation_enabled: boolean
  adaptation_samples: number
  active_adaptation_keys: number
  num_online_samples: number
  successful_benchmarks: number
  failed_benchmarks: number
}

/** The lowest-latency successful result; the first one wins a tie. */
export function bestOf(results: readonly BenchmarkResult[]): BenchmarkResult | null {
  let best: BenchmarkResult | null = null
  for (const r of results) if (r.success && (!best || r.latency_ms < best.latency_ms)) best = r
  return best
}

/**
 * Upstream `get_optimal_config`: exact key, else the one minimising
 * 1000|Δbit| + 100|Δbatch| + 0.1|Δhidden| (the hidden term is 0 if either hidden is 0).
 */
export function getOptimal(store: ReadonlyMap<string, OptimizedConfig>, batch: number, bit: number, hidden: number): OptimizedConfig | null {
  let best: OptimizedConfig | null = null
  let bestScore = Infinity
  for (const o of store.values()) {
    if (o.batch_size === batch && o.bit_width === bit && o.hidden_dim === hidden) return o
    const dh = o.hidden_dim === 0 || hidden === 0 ? 0 : Math.abs(o.hidden_dim - hidden)
    const score = 1000 * Math.abs(o.bit_width - bit) + 100 * Math.abs(o.batch_size - batch) + 0.1 * dh
    if (score < bestScore) {
      bestScore = score
      best = o
    }
  }
  return best
}
