/**
 * The autotuning job a request describes (`kerneltune autotune`'s flags): what is left out takes
 * the full run's defaults, or the quick run's, small enough for lavapipe on a CPU in a minute.
 */
import type { AutotuneJob } from './adapters/autotune-job.ts'

/** The quick run: batches, hidden sizes and bit widths, warm-ups, iterations and confirmation rounds. */
export const QUICK_JOB: {
  readonly batchSizes: readonly number[]; readonly hiddenSizes: readonly number[]; readonly bits: readonly number[]; readonly warmup: number; readonly iterations: number; readonly confirmRounds: number
} = { batchSizes: [1, 4], hiddenSizes: [256, 512], bits: [4, 8], warmup: 2, iterations: 5, confirmRounds: 10 }

export interface AutotuneRequest {
  quick?: boolean | undefined
  bits?: number[] | undefined
  batchSizes?: number[] | undefined
  hiddenSizes?: number[] | undefined
  warmup?: number | undefined
  iterations?: number | undefined
  /** guide: only the guide's variant per batch; all: every variant. Default all, guide when quick. */
  variants?: 'guide' | 'all' | undefined
  mixed?: boolean | undefined
  intermediateMultiplier?: number | undefined
  confirmRounds?: number | undefined
}

export function autotuneJobFor(r: AutotuneRequest): AutotuneJob {
  const quick = r.quick === true
  return {
    bits: r.bits ?? (quick ? [...QUICK_JOB.bits] : [4, 8]),
    batchSizes: r.batchSizes ?? (quick ? [...QUICK_JOB.batchSizes] : [1, 4, 8, 16]),
    hiddenSizes: r.hiddenSizes ?? (quick ? [...QUICK_JOB.hiddenSizes] : [2048, 4096]),
    warmup: r.warmup ?? (quick ? QUICK_JOB.warmup : 5),
    iterations: r.iterations ?? (quick ? QUICK_JOB.iterations : 20),
    guideVariantsOnly: (r.variants ?? (quick ? 'guide' : 'all')) === 'guide',
    mixed: r.mixed === true,
    intermediateMultiplier: r.intermediateMultiplier ?? 4,
    confirmRounds: r.confirmRounds ?? (quick ? QUICK_JOB.confirmRounds : 20),
  }
}
