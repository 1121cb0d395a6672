/**
 * The winner's curse: the fastest of N configurations, judged on the timings that picked it,
 * looks faster than it is, because its own noise is part of why it won (with no true difference
 * at all, the minimum of N noisy medians still beats the default's). So a tuned speed-up is
 * reported only from a confirmation phase: the winner and the baseline (the default) measured
 * afresh, in paired rounds whose order is drawn at random, and the speed-up computed from those
 * rounds alone with a 95% interval. Tuners (gpu-kernels' tuneKernel, metal-marlin-autotune) pass
 * the measurement in; the selection-time figure is theirs to keep, labelled as biased.
 */
import { mulberry32 } from '@kerneltune/core/lite'
import { pairedRatioInterval } from './ratio.ts'

export const DEFAULT_CONFIRM_ROUNDS = 20

export const CONFIRM_METHOD = 'geometric mean of per-round baseline/candidate latency ratios; paired t interval on the log ratios' as const

export interface ConfirmOptions {
  /** Paired rounds; each times the baseline and the candidate once, in a random order. At least 2. */
  rounds?: number
  /** Interval level (default 0.95). */
  level?: number
  /** Seed of the per-round order (default 1), so a run can be repeated exactly. */
  seed?: number
}

/**
 * faster: the whole interval lies above 1; slower: below 1; no-reliable-win: it contains 1, so the
 * measurements cannot tell the candidate from the baseline and the baseline is kept.
 */
export type ConfirmVerdict = 'faster' | 'no-reliable-win' | 'slower'

export interface SpeedupConfirmation {
  method: typeof CONFIRM_METHOD
  rounds: number
  /** Baseline latency / candidate latency (> 1: the candidate is faster), from the fresh rounds only. */
  speedup: number
  low: number
  high: number
  level: number
  verdict: ConfirmVerdict
  /** Medians over the rounds, in ms. */
  baselineMedianMs: number
  candidateMedianMs: number
  /** Per-round latencies (ms) and which of the two ran first in each round. */
  baselineMs: number[]
  candidateMs: number[]
  firstInRound: ('baseline' | 'candidate')[]
}

export function confirmVerdict(low: number, high: number): ConfirmVerdict {
  return low > 1 ? 'faster' : high < 1 ? 'slower' : 'no-reliable-win'
}

/**
 * Runs the rounds: `measure(which)` times one of the two afresh and returns its latency in ms.
 * Interleaving in random order keeps drift (thermal, other load) from landing on one side only.
 */
export async function runConfirmation(measure: (which: 'baseline' | 'candidate') => Promise<number>, opts: ConfirmOptions = {}): Promise<SpeedupConfirmation> {
  const rounds = Math.max(2, Math.floor(opts.rounds ?? DEFAULT_CONFIRM_ROUNDS))
  const level = opts.level ?? 0.95
  const rand = mulberry32(opts.seed ?? 1)
  const baselineMs: number[] = []
  const candidateMs: number[] = []
  const firstInRound: ('baseline' | 'candidate')[] = []
  for (let i = 0; i < rounds; i++) {
    const first = rand() < 0.5 ? 'baseline' : 'candidate'
    const second = first === 'baseline' ? 'candidate' : 'baseline'
    const a = await measure(first)
    const b = await measure(second)
    baselineMs.push(first === 'baseline' ? a : b)
    candidateMs.push(first === 'baseline' ? b : a)
    firstInRound.push(first)
  }
  const r = pairedRatioInterval(baselineMs, candidateMs, level)
  return {
    method: CONFIRM_METHOD,
    rounds,
    speedup: r.ratio,
    low: r.low,
    high: r.high,
    level,
    verdict: confirmVerdict(r.low, r.high),
    baselineMedianMs: r.baselineMedian,
    candidateMedianMs: r.candidateMedian,
    baselineMs,
    candidateMs,
    firstInRound,
  }
}
