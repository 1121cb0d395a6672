/**
 * Summary statistics of a measurement's repetitions, per metric, from @kerneltune/stats: mean,
 * 10% trimmed mean, median, standard deviation and a 95% confidence interval of the mean.
 */
import type { RepetitionMetrics } from '@kerneltune/core'
import { confidenceInterval, summarize } from '@kerneltune/stats'

export interface MetricSummary {
  readonly n: number
  readonly mean: number
  readonly trimmedMean: number
  readonly median: number
  readonly sd: number
  readonly min: number
  readonly max: number
  /** Undefined with a single repetition. */
  readonly ci95?: { readonly low: number; readonly high: number }
}

export interface RepetitionSummary {
  readonly prefillTps?: MetricSummary
  readonly decodeTps?: MetricSummary
  readonly ttftMs?: MetricSummary
  readonly peakMemoryBytes?: MetricSummary
  readonly latencyMs?: MetricSummary
  readonly throughputTps?: MetricSummary
}

export function summarizeMetric(xs: readonly number[]): MetricSummary | undefined {
  if (xs.length === 0) return undefined
  const s = summarize(xs)
  const ci = xs.length > 1 ? confidenceInterval(xs, 0.95) : undefined
  return { n: s.n, mean: s.mean, trimmedMean: s.trimmedMean, median: s.p50, sd: s.sd, min: s.min, max: s.max, ...(ci ? { ci95: { low: ci.low, high: ci.high } } : {}) }
}

const METRICS = ['prefillTps', 'decodeTps', 'ttftMs', 'peakMemoryBytes', 'latencyMs', 'throughputTps'] as const

export function summarizeRepetitions(reps: readonly RepetitionMetrics[]): RepetitionSummary {
  const out: Record<string, MetricSummary> = {}
  for (const m of METRICS) {
    const s = summarizeMetric(reps.map((r) => r[m]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v)))
    if (s) out[m] = s
  }
  return out
}
