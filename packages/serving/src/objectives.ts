/**
 * Latency objectives as deployments state them (`ttft_p99_ms=500,tpot_p99_ms=50`), the objective a
 * choice optimises (goodput, token or request throughput, or a latency statistic to minimise),
 * feasibility of a measured candidate, the decision among candidates (an infeasible one never
 * wins) and the Pareto front of throughput against latency. Runtime-neutral: the CLI, the sweep
 * and the capacity search share it.
 *
 * Goodput follows vLLM's benchmark_serving: requests per second whose every stated latency meets
 * its objective, judged per request (a request's TTFT, TPOT and E2E against the limits, whatever
 * statistic the objective names for the aggregate). vLLM has no ITL goodput; here a request's ITL
 * is the same statistic over its own chunk gaps (its p99 gap for `itl_p99_ms`), so the per-request
 * check reads as the aggregate one does.
 */
import { z } from 'zod'
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { tpotOf, type ServingMetrics } from './metrics.ts'
import type { RequestRecord } from './request.ts'
import { percentile, summarize, type Distribution } from './summary.ts'

export const SLO_METRICS = ['ttft', 'tpot', 'itl', 'e2e'] as const
export const SLO_STATS = ['mean', 'p50', 'p90', 'p95', 'p99'] as const
export type SloMetric = (typeof SLO_METRICS)[number]
export type SloStat = (typeof SLO_STATS)[number]

/** Every accepted objective name: ttft_mean_ms, ttft_p50_ms, ..., e2e_p99_ms. */
export const SLO_NAMES: readonly string[] = SLO_METRICS.flatMap((m) => SLO_STATS.map((s) => `${m}_${s}_ms`))

export interface LatencyObjective {
  readonly name: string
  readonly metric: SloMetric
  readonly stat: SloStat
  readonly limitMs: number
}

// Typed explicitly (not inferred) so JSR publishes the package without slow types.
export const LatencyObjectiveSchema: z.ZodType<LatencyObjective> = z.object({
  name: z.string(),
  metric: z.enum(SLO_METRICS),
  stat: z.enum(SLO_STATS),
  limitMs: z.number().positive().finite(),
})

/** Objectives in the order they were stated; at most one per name. */
export const SloSchema: z.ZodType<LatencyObjective[]> = z.array(LatencyObjectiveSchema).refine((xs) => new Set(xs.map((x) => x.name)).size === xs.length, 'an objective is stated twice')
export type Slo = readonly LatencyObjective[]

const NAME = /^(ttft|tpot|itl|e2e)_(mean|p50|p90|p95|p99)_ms$/

function nameError(name: string): KerneltuneError {
  return new KerneltuneError('INVALID_INPUT', `unknown latency objective '${name}'; accepted: ${SLO_NAMES.join(', ')}`, { details: { name, accepted: SLO_NAMES } })
}

/** Parses `ttft_p99_ms=500,tpot_p99_ms=50`; a typed INVALID_INPUT error lists the accepted names. */
export function parseSlo(text: string): Slo {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p.length > 0)
  if (parts.length === 0) throw new KerneltuneError('INVALID_INPUT', `no latency objective in '${text}'; write NAME=MS[,NAME=MS...], e.g. ttft_p99_ms=500,tpot_p99_ms=50; accepted names: ${SLO_NAMES.join(', ')}`)
  const out: LatencyObjective[] = []
  for (const p of parts) {
    const eq = p.indexOf('=')
    if (eq < 0) throw new KerneltuneError('INVALID_INPUT', `'${p}' has no limit; write NAME=MS, e.g. ttft_p99_ms=500`)
    const name = p.slice(0, eq).trim().toLowerCase()
    const raw = p.slice(eq + 1).trim()
    const m = NAME.exec(name)
    if (!m) throw nameError(name)
    const limitMs = Number(raw)
    if (raw === '' || !Number.isFinite(limitMs) || limitMs <= 0) throw new KerneltuneError('INVALID_INPUT', `${name}: the limit must be a positive number of milliseconds, got '${raw}'`)
    if (out.some((o) => o.name === name)) throw new KerneltuneError('INVALID_INPUT', `${name} is stated twice in '${text}'`)
    out.push({ name, metric: m[1] as SloMetric, stat: m[2] as SloStat, limitMs })
  }
  return parseWith(SloSchema, out, 'latency objectives')
}

/** `ttft_p99_ms=500,tpot_p99_ms=50` again. */
export const formatSlo = (slo: Slo): string => slo.map((o) => `${o.name}=${o.limitMs}`).join(',')

/** In words for people: 'TTFT p99 ≤ 500 ms, TPOT p99 ≤ 50 ms'. */
export const describeSlo = (slo: Slo): string => slo.map((o) => `${o.metric.toUpperCase()} ${o.stat} ≤ ${o.limitMs} ms`).join(', ')

export const THROUGHPUT_OBJECTIVES = ['goodput', 'outputTokensPerSecond', 'requestThroughput'] as const
export type ThroughputObjective = (typeof THROUGHPUT_OBJECTIVES)[number]

/** What a choice optimises: a throughput (maximised) or a latency statistic (minimised). */
export type Objective =
  | { readonly kind: 'throughput'; readonly name: ThroughputObjective; readonly direction: 'max' }
  | { readonly kind: 'latency'; readonly name: string; readonly metric: SloMetric; readonly stat: SloStat; readonly direction: 'min' }

export const OBJECTIVE_NAMES: readonly string[] = [...THROUGHPUT_OBJECTIVES, ...SLO_NAMES]

export function parseObjective(text: string): Objective {
  const t = text.trim()
  if ((THROUGHPUT_OBJECTIVES as readonly string[]).includes(t)) return { kind: 'throughput', name: t as ThroughputObjective, direction: 'max' }
  const m = NAME.exec(t.toLowerCase())
  if (m) return { kind: 'latency', name: t.toLowerCase(), metric: m[1] as SloMetric, stat: m[2] as SloStat, direction: 'min' }
  throw new KerneltuneError('INVALID_INPUT', `unknown objective '${text}'; accepted: ${OBJECTIVE_NAMES.join(', ')}`, { details: { accepted: OBJECTIVE_NAMES } })
}

/** The figures of one measured candidate that objectives read; ServingMetrics is one. */
export type CandidateMetrics = Pick<ServingMetrics, 'requests' | 'ttftMs' | 'tpotMs' | 'itlMs' | 'e2eMs' | 'requestThroughput' | 'outputTokensPerSecond'> & {
  /** Goodput under the objectives; absent without them. */
  readonly goodput?: { readonly requestsPerSecond: number; readonly met: number }
}

const DIST: Record<SloMetric, 'ttftMs' | 'tpotMs' | 'itlMs' | 'e2eMs'> = { ttft: 'ttftMs', tpot: 'tpotMs', itl: 'itlMs', e2e: 'e2eMs' }

/** The aggregate value of a latency statistic; NaN when nothing was measured. */
export const latencyValue = (m: CandidateMetrics, metric: SloMetric, stat: SloStat): number => m[DIST[metric]][stat]

/** A request's own value for an objective (undefined: the objective says nothing about it). */
function requestValue(r: RequestRecord, o: LatencyObjective): number | undefined {
  if (o.metric === 'ttft') return r.ttftMs ?? Infinity
  if (o.metric === 'e2e') return r.e2eMs
  // As vLLM: a request with one output token has no TPOT and meets a TPOT objective vacuously.
  if (o.metric === 'tpot') return tpotOf(r) ?? 0
  if (r.itlMs.length === 0) return undefined
  if (o.stat === 'mean') return r.itlMs.reduce((a, b) => a + b, 0) / r.itlMs.length
  return percentile([...r.itlMs].sort((a, b) => a - b), Number(o.stat.slice(1)))
}

/** Whether one request met every objective; a failed request meets none. */
export function requestMeets(r: RequestRecord, slo: Slo): boolean {
  if (!r.ok) return false
  return slo.every((o) => (requestValue(r, o) ?? 0) <= o.limitMs)
}

/** vLLM's goodput over the records: requests meeting every objective, per second of the run. */
export function sloGoodput(records: readonly RequestRecord[], slo: Slo, durationS: number): { requestsPerSecond: number; met: number } {
  const met = records.filter((r) => requestMeets(r, slo)).length
  return { requestsPerSecond: met / Math.max(1e-9, durationS), met }
}

export interface Violation {
  /** The objective's name, or 'failed_requests' when requests failed (a failed request meets no objective). */
  readonly metric: string
  readonly limit: number
  /** The measured value; null when nothing was measured. */
  readonly value: number | null
}

export interface Evaluation {
  readonly feasible: boolean
  readonly violations: readonly Violation[]
}

/**
 * Feasibility under the objectives: every stated statistic at most its limit, and no failed
 * request. A statistic with no sample is a violation, except TPOT and ITL of runs whose requests
 * all had one token (vacuous, as for goodput).
 */
export function evaluate(m: CandidateMetrics, slo: Slo): Evaluation {
  const violations: Violation[] = []
  if (m.requests.failed > 0 || m.requests.completed === 0) violations.push({ metric: 'failed_requests', limit: 0, value: m.requests.failed })
  for (const o of slo) {
    const d = m[DIST[o.metric]]
    if (d.count === 0) {
      if ((o.metric === 'tpot' || o.metric === 'itl') && m.requests.completed > 0) continue
      violations.push({ metric: o.name, limit: o.limitMs, value: null })
      continue
    }
    const v = d[o.stat]
    if (!(v <= o.limitMs)) violations.push({ metric: o.name, limit: o.limitMs, value: v })
  }
  return { feasible: violations.length === 0, violations }
}

/** A violation in words: 'ttft_p99_ms 812.4 > 500 (+62%)'. */
export function describeViolation(v: Violation): string {
  if (v.metric === 'failed_requests') return `${v.value} failed request${v.value === 1 ? '' : 's'}`
  if (v.value === null) return `${v.metric}: not measured`
  return `${v.metric} ${v.value.toFixed(1)} > ${v.limit} (+${((v.value / v.limit - 1) * 100).toFixed(0)}%)`
}

/** The objective's value for a candidate; NaN when it cannot be read (goodput without objectives). */
export function objectiveValue(m: CandidateMetrics, o: Objective): number {
  if (o.kind === 'latency') return latencyValue(m, o.metric, o.stat)
  if (o.name === 'goodput') return m.goodput?.requestsPerSecond ?? Number.NaN
  return m[o.name]
}

/** a better than b under the objective (NaN is worst). */
export function better(o: Objective, a: number, b: number): boolean {
  if (Number.isNaN(a)) return false
  if (Number.isNaN(b)) return true
  return o.direction === 'max' ? a > b : a < b
}

export interface RankedCandidate {
  readonly index: number
  readonly feasible: boolean
  readonly value: number
}

/** Feasible candidates first, each group best first by the objective; ties keep the input order. */
export function rankCandidates(cands: readonly { readonly index: number; readonly metrics: CandidateMetrics; readonly feasible: boolean }[], o: Objective): RankedCandidate[] {
  const rows = cands.map((c, pos) => ({ index: c.index, feasible: c.feasible, value: objectiveValue(c.metrics, o), pos }))
  rows.sort((a, b) => (a.feasible === b.feasible ? (better(o, a.value, b.value) ? -1 : better(o, b.value, a.value) ? 1 : a.pos - b.pos) : a.feasible ? -1 : 1))
  return rows.map(({ index, feasible, value }) => ({ index, feasible, value }))
}

export interface Decision {
  /** The chosen candidate, or null: keep the defaults (or nothing meets the objectives). */
  readonly winner: number | null
  readonly defaultsFeasible: boolean
  readonly ranking: readonly RankedCandidate[]
  /** Why, in words. */
  readonly reason: string
}

/**
 * Chooses among candidates by the objectives. An infeasible candidate is never the winner. With
 * feasible defaults, the best feasible candidate wins only if `beatsDefaults` says it does (by
 * default: its objective value is strictly better); with infeasible defaults, the best feasible
 * candidate wins outright, and the reason says the defaults miss the objectives.
 */
export function decide(
  cands: readonly { readonly index: number; readonly metrics: CandidateMetrics; readonly feasible: boolean }[],
  defaultsIndex: number,
  o: Objective,
  beatsDefaults?: (index: number) => boolean,
): Decision {
  const ranking = rankCandidates(cands, o)
  const defaults = ranking.find((r) => r.index === defaultsIndex)
  if (!defaults) throw new KerneltuneError('INVALID_INPUT', `the defaults (candidate ${defaultsIndex}) are not among the candidates`)
  const best = ranking.find((r) => r.feasible && r.index !== defaultsIndex)
  // Defaults with no request at all (a time budget that ended a sweep before it reached them) did
  // not miss the objectives: they were not measured, and no candidate can be judged against them.
  const measured = (m: CandidateMetrics) => m.requests.completed + m.requests.failed > 0
  if (!measured(cands.find((c) => c.index === defaultsIndex)!.metrics)) return { winner: null, defaultsFeasible: false, ranking, reason: 'the defaults were not measured: no candidate can be judged against them; keep the defaults' }
  if (!defaults.feasible) {
    if (!best) return { winner: null, defaultsFeasible: false, ranking, reason: 'the defaults miss the objectives, and so does every other candidate' }
    return { winner: best.index, defaultsFeasible: false, ranking, reason: `the defaults miss the objectives; candidate ${best.index} meets them and is the best that does by ${o.name}` }
  }
  if (!best) return { winner: null, defaultsFeasible: true, ranking, reason: 'no other candidate meets the objectives: keep the defaults' }
  const beats = beatsDefaults ? beatsDefaults(best.index) : better(o, best.value, defaults.value)
  if (!beats) return { winner: null, defaultsFeasible: true, ranking, reason: `the best feasible candidate (${best.index}) does not beat the defaults by ${o.name}: keep the defaults` }
  return { winner: best.index, defaultsFeasible: true, ranking, reason: `candidate ${best.index} meets the objectives and beats the defaults by ${o.name}` }
}

/** The axes of the Pareto front: a throughput (maximised) against a latency statistic (minimised). */
export interface ParetoAxes {
  readonly throughput: ThroughputObjective
  readonly latency: { readonly name: string; readonly metric: SloMetric; readonly stat: SloStat }
}

/** The objective's own axis where it has one; otherwise output tokens/s and the first stated objective's latency (TTFT p99 without any). */
export function paretoAxes(o: Objective, slo: Slo): ParetoAxes {
  const first = slo[0]
  const latency = o.kind === 'latency' ? { name: o.name, metric: o.metric, stat: o.stat } : first ? { name: first.name, metric: first.metric, stat: first.stat } : { name: 'ttft_p99_ms', metric: 'ttft' as const, stat: 'p99' as const }
  const throughput = o.kind === 'throughput' && (o.name !== 'goodput' || slo.length > 0) ? o.name : 'outputTokensPerSecond'
  return { throughput, latency }
}

/**
 * Indices of the points no other point dominates (at least as much throughput and at most as much
 * latency, better in one). Points with a non-finite coordinate are left out. In input order.
 */
export function paretoFront(points: readonly { readonly index: number; readonly throughput: number; readonly latency: number }[]): number[] {
  const ok = points.filter((p) => Number.isFinite(p.throughput) && Number.isFinite(p.latency))
  return ok
    .filter((p) => !ok.some((q) => q.throughput >= p.throughput && q.latency <= p.latency && (q.throughput > p.throughput || q.latency < p.latency)))
    .map((p) => p.index)
}

/** Metrics of a set of records (pooled rounds of one candidate) with goodput under the objectives. */
export function candidateMetricsOf(records: readonly RequestRecord[], slo: Slo, durationS: number): CandidateMetrics {
  const ok = records.filter((r) => r.ok)
  const outputTokens = ok.reduce((a, r) => a + (r.outputTokens ?? 0), 0)
  const d = Math.max(1e-9, durationS)
  return {
    requests: { completed: ok.length, failed: records.length - ok.length },
    ttftMs: summarize(ok.map((r) => r.ttftMs ?? Number.NaN)),
    tpotMs: summarize(ok.map(tpotOf).filter((x): x is number => x !== undefined)),
    itlMs: summarize(ok.flatMap((r) => r.itlMs)),
    e2eMs: summarize(ok.map((r) => r.e2eMs)),
    requestThroughput: ok.length / d,
    outputTokensPerSecond: outputTokens / d,
    ...(slo.length ? { goodput: sloGoodput(records, slo, d) } : {}),
  }
}
