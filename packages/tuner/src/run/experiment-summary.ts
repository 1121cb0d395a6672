/**
 * What a design of @kerneltune/experiment adds to a run's summary (experiment-run.ts writes it):
 * the design's own result and, interleaved, its rounds, A/A check and paired comparisons. Types
 * only, kept apart from the executor, so that what reads a stored summary (verdict.ts) needs
 * nothing of what measures one.
 */
import type { Combo, MeasurementLaunch } from '@kerneltune/core'
import type { PairedComparison } from '@kerneltune/experiment'

/** What a design's run adds to its summary: the design's own result, per combination index. */
export interface ExperimentSummary {
  design: 'interleaved' | 'sequential'
  metric: string
  device: string
  /** The worker that measured every round, when a worker did. */
  worker: string | null
  /** The combination the design's rule picks, with its command line; null keeps the baseline. */
  winner: { index: number; comboHash: string; combo: Combo; improvement: number; argv: string[]; value?: number } | null
  /** The design's own finding in words (evidence: the run's verdict decides, verdict.ts). */
  verdict: string
  /** The command line to run, the run's verdict's (RunVerdict.recommendedArgv): the winner's, the baseline's when the defaults stay, [] when the verdict is withheld. */
  recommendedArgv: string[]
}

/** An interleaved run's summary adds the rounds, the A/A check and the paired comparisons. */
export interface InterleavedSummary extends ExperimentSummary {
  design: 'interleaved'
  rounds: number
  partialRound: boolean
  seed: number
  test: string
  /** Per combination index: its comparison with the baseline of the same rounds. */
  paired: Record<string, PairedComparison | null>
  aa: { comparison: PairedComparison | null; declaredWinner: boolean; falseWinnerRate: number | null }
  /** The arms in measured order per round ('baseline', 'aa' or a combination index). */
  order: string[][]
  /** Per combination index: the variance of its log ratio to the baseline over rounds (the replicate noise a Tier 2 session reads). */
  replicateVariance: Record<string, number>
  /** Each round's duration, seconds (absent in runs stored before issue 35). */
  roundSeconds?: number[]
  /** The backend's launches before round 1, seconds; null when there was none. */
  prepareSeconds?: number | null
  /** Per arm ('baseline', 'aa' or a combination index): every server launch it paid, with its phases. */
  launches?: Record<string, MeasurementLaunch[]>
}
