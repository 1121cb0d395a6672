/**
 * The sequential design's two steps, in one place for every entry point: measuring one
 * combination in chunks of repetitions with early termination (`measureWithEarlyStop`), and its
 * comparison with the baseline on one metric (`compareWithBaseline`). `runSweep` (kerneltune
 * sweep, the demo) and the tuner's executeRun (runs, their result cache, stored progress and
 * resume) and evaluateCombo (a worker's job) all measure and compare through these two.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { RepetitionMetrics } from '@kerneltune/core'
import { compareToBaseline, shouldStopEarly, type Comparison } from '@kerneltune/stats'

/** One rival in the early-termination pool: the baseline, or the best combination so far. */
export interface EarlyStopRival {
  readonly id: string
  readonly samples: readonly number[]
}

export interface EarlyStopMeasureOptions {
  /** Measures `repetitions` more repetitions after `warmups` warm-ups (one backend call). */
  readonly measure: (repetitions: number, warmups: number) => Promise<readonly RepetitionMetrics[]>
  /** How the combination is named in the rule's reasons. */
  readonly id: string
  /** Repetitions at most. */
  readonly maxReps: number
  /** The first chunk (with warm-ups) when early termination may stop the combination. */
  readonly firstChunk: number
  /** Repetitions added per later chunk. */
  readonly step: number
  readonly warmups: number
  /** Off: one chunk of `maxReps`. Also off without rivals (the baseline itself). */
  readonly earlyStop: boolean
  /** The samples the rule ranks by, from this combination's repetitions so far. */
  readonly samples: (reps: readonly RepetitionMetrics[]) => number[]
  /** Who the combination is ranked against; with none, it is measured to `maxReps`. */
  readonly rivals: readonly EarlyStopRival[]
  readonly higherIsBetter: boolean
  /** Interval width, relative to the value, counted as tight. */
  readonly noiseFloor: number
  /** Samples before the rule may stop (shouldStopEarly's own default when absent). */
  readonly minSamples?: number
  readonly signal?: AbortSignal
  /** Told after every chunk (progress). */
  readonly onChunk?: (reps: readonly RepetitionMetrics[]) => void
}

export interface EarlyStopMeasurement {
  readonly reps: RepetitionMetrics[]
  /** Why measurement ended before `maxReps`, when the rule stopped it. */
  readonly stoppedEarly?: string
}

/**
 * Measures one combination: a first chunk, then `step` repetitions at a time until the ranking
 * among it and its rivals is settled (the leader's interval is tight and overlaps no other: more
 * repetitions would not change it) or `maxReps` is reached. Errors of the measurement propagate:
 * the caller decides whether a combination that cannot run fails the whole experiment.
 */
export async function measureWithEarlyStop(o: EarlyStopMeasureOptions): Promise<EarlyStopMeasurement> {
  const stopping = o.earlyStop && o.rivals.length > 0
  const reps: RepetitionMetrics[] = []
  while (reps.length < o.maxReps) {
    if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
    const chunk = reps.length === 0 ? Math.min(o.maxReps, stopping ? o.firstChunk : o.maxReps) : Math.min(o.step, o.maxReps - reps.length)
    const got = await o.measure(chunk, reps.length === 0 ? o.warmups : 0)
    if (got.length === 0) throw new KerneltuneError('MEASUREMENT_FAILED', 'the backend returned no repetitions')
    reps.push(...got)
    o.onChunk?.(reps)
    if (!stopping || reps.length >= o.maxReps) continue
    const pool = [{ id: o.id, samples: o.samples(reps) }, ...o.rivals.map((r) => ({ id: r.id, samples: [...r.samples] }))]
    const d = shouldStopEarly(pool, { higherIsBetter: o.higherIsBetter, noiseFloor: o.noiseFloor, ...(o.minSamples === undefined ? {} : { minSamples: o.minSamples }) })
    if (d.stop) return { reps, stoppedEarly: `after ${reps.length} of ${o.maxReps} repetitions: ${d.reasons.join('; ')}` }
  }
  return { reps }
}

/**
 * A combination against the baseline on one metric (10% trimmed means, Welch/Yuen, Cohen's d);
 * undefined with fewer than 2 samples on either side.
 */
export function compareWithBaseline(samples: readonly number[], baseline: readonly number[], o: { readonly higherIsBetter: boolean; readonly alpha?: number }): Comparison | undefined {
  if (samples.length < 2 || baseline.length < 2) return undefined
  return compareToBaseline([...samples], [...baseline], { higherIsBetter: o.higherIsBetter, ...(o.alpha === undefined ? {} : { alpha: o.alpha }) })
}
