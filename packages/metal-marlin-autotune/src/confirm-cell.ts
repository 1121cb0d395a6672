/**
 * The confirmation phase of one tuned cell (issue 23 item 9, the winner's curse): the cell's
 * fastest config was picked on the same timings that would show its speed-up, so that figure is
 * biased upward. Here the winner and the cell's default config are timed afresh (the benchmarker
 * is told not to answer from a cache) in randomly ordered paired rounds, and the speed-up and its
 * interval come from those rounds only. The winner is kept only when the interval lies above 1.
 */
import { runConfirmation, type SpeedupConfirmation } from '@kerneltune/stats'
import { benchmarkMixed, type BenchmarkOptions, type LayerBenchmarker } from './benchmark.ts'
import { configId, type BenchmarkResult, type KernelConfig } from './kernel-config.ts'

export interface CellConfirmation {
  /** The default config's selection-time result (measured with the candidates' settings). */
  readonly default: BenchmarkResult
  /** default / best latency on the selection timings: biased upward, kept to show the bias. */
  readonly selectionSpeedup: number | null
  /** Fresh interleaved rounds of the winner against the default; null when the default itself won or could not run. */
  readonly confirmation: SpeedupConfirmation | null
  /** What the lookup table holds for the cell: the winner only when it is confirmed faster (or the default cannot run). */
  readonly kept: 'tuned' | 'default'
  /** Why the confirmation could not finish, when a fresh measurement failed. */
  readonly error?: string
}

export interface ConfirmCellInput {
  readonly benchmarker: LayerBenchmarker | undefined
  readonly bits: readonly number[]
  readonly batch: number
  readonly hidden: number
  readonly intermediate: number
  readonly best: BenchmarkResult
  /** The cell's selection results, where the default may already be. */
  readonly results: readonly BenchmarkResult[]
  readonly defaultConfig: KernelConfig
  readonly timing: BenchmarkOptions
  readonly rounds: number
  readonly seed?: number
}

export async function confirmCell(input: ConfirmCellInput): Promise<CellConfirmation> {
  const { benchmarker, bits, batch, hidden, intermediate, best, timing } = input
  const defId = configId(input.defaultConfig)
  if (configId(best.config) === defId) return { default: best, selectionSpeedup: 1, confirmation: null, kept: 'default' }
  // The default's selection-time figure: from the candidates if it was one, else timed once the same way.
  const def = input.results.find((r) => configId(r.config) === defId) ??
    (await benchmarkMixed(benchmarker, input.defaultConfig, bits, batch, hidden, intermediate, { warmup: timing.warmup, iterations: timing.iterations }))
  if (!def.success) return { default: def, selectionSpeedup: null, confirmation: null, kept: 'tuned' }
  const selectionSpeedup = def.latency_ms / best.latency_ms
  const fresh = { warmup: timing.warmup, iterations: timing.iterations, fresh: true }
  try {
    const confirmation = await runConfirmation(async (which) => {
      const r = await benchmarkMixed(benchmarker, which === 'baseline' ? input.defaultConfig : best.config, bits, batch, hidden, intermediate, fresh)
      if (!r.success) throw new Error(`${which === 'baseline' ? 'default' : 'winner'} ${configId(r.config)}: ${r.error_msg}`)
      return r.latency_ms
    }, { rounds: input.rounds, ...(input.seed !== undefined ? { seed: input.seed } : {}) })
    return { default: def, selectionSpeedup, confirmation, kept: confirmation.verdict === 'faster' ? 'tuned' : 'default' }
  } catch (err) {
    // Both ran in selection, so this is rare (a device loss); the winner stays, unconfirmed, and says why.
    return { default: def, selectionSpeedup, confirmation: null, kept: 'tuned', error: err instanceof Error ? err.message : String(err) }
  }
}
