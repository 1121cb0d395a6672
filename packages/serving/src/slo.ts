/**
 * Latency objectives written as `metric_stat_unit=value` pairs, comma-separated:
 * `ttft_p99_ms=500,tpot_mean_ms=50`. Metrics: ttft, tpot, itl, e2e; statistics: mean, p50, p90,
 * p95, p99; units: ms or s (kept in ms). The statistic says which figure of a load's distribution
 * the objective bounds; a single request is judged against the value itself, as vLLM's goodput does.
 */
import { KerneltuneError } from '@kerneltune/core'

export const SLO_METRICS = ['ttft', 'tpot', 'itl', 'e2e'] as const
export const SLO_STATS = ['mean', 'p50', 'p90', 'p95', 'p99'] as const
export type SloMetric = (typeof SLO_METRICS)[number]
export type SloStat = (typeof SLO_STATS)[number]

export interface SloObjective {
  readonly metric: SloMetric
  readonly stat: SloStat
  /** The bound, in milliseconds. */
  readonly ms: number
}

const PAIR = /^(ttft|tpot|itl|e2e)_(mean|p50|p90|p95|p99)_(ms|s)=(\d+(?:\.\d+)?|\.\d+)$/

/** Parses `ttft_p99_ms=500,tpot_p99_ms=50`; one objective per metric and statistic. */
export function parseSlo(text: string): SloObjective[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '')
  if (parts.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the latency objectives are empty; write them as metric_stat_unit=value, e.g. ttft_p99_ms=500,tpot_p99_ms=50')
  const out: SloObjective[] = []
  for (const p of parts) {
    const m = PAIR.exec(p)
    if (!m) {
      throw new KerneltuneError('INVALID_INPUT', `latency objective ${JSON.stringify(p)} is not metric_stat_unit=value with metric ${SLO_METRICS.join('|')}, statistic ${SLO_STATS.join('|')} and unit ms|s, e.g. ttft_p99_ms=500`)
    }
    const ms = Number(m[4]) * (m[3] === 's' ? 1000 : 1)
    if (!(ms > 0)) throw new KerneltuneError('INVALID_INPUT', `latency objective ${p} must bound the latency by a positive value`)
    const o = { metric: m[1] as SloMetric, stat: m[2] as SloStat, ms }
    if (out.some((x) => x.metric === o.metric && x.stat === o.stat)) throw new KerneltuneError('INVALID_INPUT', `latency objective ${m[1]}_${m[2]} is given twice`)
    out.push(o)
  }
  return out
}

/** The objectives back in their written form. */
export function formatSlo(objectives: readonly SloObjective[]): string {
  return objectives.map((o) => `${o.metric}_${o.stat}_ms=${o.ms}`).join(',')
}
