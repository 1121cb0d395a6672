/** Per-combination summary metrics and the samples the statistics read, from raw repetitions. */
import type { ComboMetrics, RepetitionMetrics } from '@kerneltune/core'
import { percentile, trimmedMean } from '@kerneltune/stats'
import type { TargetMetric } from '../request.ts'

export function comboMetrics(reps: readonly RepetitionMetrics[]): ComboMetrics | null {
  if (reps.length === 0) return null
  const lat = reps.map((r) => r.latencyMs)
  const tps = reps.map((r) => r.throughputTps).filter((x): x is number => x !== undefined)
  const mem = reps.map((r) => r.peakMemoryBytes).filter((x): x is number => x !== undefined)
  const keys = [...new Set(reps.flatMap((r) => Object.keys(r.breakdown ?? {})))]
  const breakdown = keys.length
    ? Object.fromEntries(keys.map((k) => [k, trimmedMean(reps.map((r) => r.breakdown?.[k]).filter((x): x is number => x !== undefined))]))
    : undefined
  return {
    ...(tps.length === reps.length ? { throughputTps: trimmedMean(tps) } : {}),
    latencyP50Ms: percentile(lat, 50),
    latencyP95Ms: percentile(lat, 95),
    latencyP99Ms: percentile(lat, 99),
    ...(mem.length ? { peakMemoryBytes: Math.max(...mem) } : {}),
    ...(breakdown ? { breakdown } : {}),
  }
}

/** Samples of the target metric; throughput falls back to latency when a backend gives none. */
export function samplesOf(reps: readonly RepetitionMetrics[], metric: TargetMetric): { metric: TargetMetric; values: number[] } {
  if (metric === 'throughputTps' && reps.length && reps.every((r) => r.throughputTps !== undefined)) {
    return { metric, values: reps.map((r) => r.throughputTps!) }
  }
  return { metric: 'latencyMs', values: reps.map((r) => r.latencyMs) }
}

export const higherIsBetter = (metric: TargetMetric): boolean => metric === 'throughputTps'

/** Metric name → samples, as the quality gates read them. */
export function gateSamples(reps: readonly RepetitionMetrics[]): Record<string, number[]> {
  const out: Record<string, number[]> = { latencyMs: reps.map((r) => r.latencyMs) }
  if (reps.length && reps.every((r) => r.throughputTps !== undefined)) out.throughputTps = reps.map((r) => r.throughputTps!)
  return out
}
