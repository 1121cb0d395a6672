/**
 * Serving metrics with the definitions of vLLM's benchmark_serving.py, from the client's request
 * records: TTFT, TPOT per request = (e2e - TTFT) / (output tokens - 1), ITL = every gap between
 * successive streamed chunks (pooled across requests), end-to-end latency, request and token
 * throughput over the benchmark's duration, and goodput: requests per second that met every
 * latency objective given.
 */
import { summarize, type Distribution } from './summary.ts'
import type { RequestRecord } from './request.ts'

export interface LatencyObjectives {
  readonly ttftMs?: number
  readonly tpotMs?: number
  readonly e2eMs?: number
}

export interface ServingMetrics {
  readonly requests: { readonly completed: number; readonly failed: number }
  /** Seconds from the first request sent to the last one finished. */
  readonly durationS: number
  readonly ttftMs: Distribution
  readonly tpotMs: Distribution
  readonly itlMs: Distribution
  readonly e2eMs: Distribution
  readonly requestThroughput: number
  readonly outputTokensPerSecond: number
  readonly totalTokensPerSecond: number
  readonly totalPromptTokens: number
  readonly totalOutputTokens: number
  /** Requests per second meeting every objective; absent when no objective was given. */
  readonly goodput?: { readonly requestsPerSecond: number; readonly met: number; readonly objectives: LatencyObjectives }
  /** Where the token counts came from: 'usage' (the server's) unless it sent none. */
  readonly tokenSource: 'usage' | 'chunks' | 'mixed' | 'none'
  /** Distinct error messages with their counts. */
  readonly errors: readonly { readonly message: string; readonly count: number }[]
}

export function tpotOf(r: RequestRecord): number | undefined {
  if (!r.ok || r.ttftMs === undefined || r.outputTokens === undefined || r.outputTokens < 2) return undefined
  return (r.e2eMs - r.ttftMs) / (r.outputTokens - 1)
}

export function computeServingMetrics(records: readonly RequestRecord[], objectives?: LatencyObjectives): ServingMetrics {
  const ok = records.filter((r) => r.ok)
  const start = records.length ? Math.min(...records.map((r) => r.startMs)) : 0
  const end = records.length ? Math.max(...records.map((r) => r.startMs + r.e2eMs)) : 0
  const durationS = Math.max(1e-9, (end - start) / 1000)
  const tpots = ok.map(tpotOf).filter((x): x is number => x !== undefined)
  const totalOutputTokens = ok.reduce((a, r) => a + (r.outputTokens ?? 0), 0)
  const totalPromptTokens = ok.reduce((a, r) => a + (r.promptTokens ?? 0), 0)
  const sources = new Set(ok.map((r) => r.tokenSource))
  const tokenSource = sources.size === 0 ? 'none' : sources.size > 1 ? 'mixed' : (ok[0]!.tokenSource ?? 'none')
  const errors = new Map<string, number>()
  for (const r of records) if (!r.ok) errors.set(r.error ?? 'unknown', (errors.get(r.error ?? 'unknown') ?? 0) + 1)
  let goodput: ServingMetrics['goodput']
  if (objectives && Object.values(objectives).some((v) => v !== undefined)) {
    // As vLLM: a request with one output token has no TPOT and meets a TPOT objective vacuously.
    const met = ok.filter((r) => {
      const tpot = tpotOf(r) ?? 0
      return (objectives.ttftMs === undefined || (r.ttftMs ?? Infinity) <= objectives.ttftMs) &&
        (objectives.tpotMs === undefined || tpot <= objectives.tpotMs) &&
        (objectives.e2eMs === undefined || r.e2eMs <= objectives.e2eMs)
    }).length
    goodput = { requestsPerSecond: met / durationS, met, objectives }
  }
  return {
    requests: { completed: ok.length, failed: records.length - ok.length },
    durationS,
    ttftMs: summarize(ok.map((r) => r.ttftMs!)),
    tpotMs: summarize(tpots),
    itlMs: summarize(ok.flatMap((r) => r.itlMs)),
    e2eMs: summarize(ok.map((r) => r.e2eMs)),
    requestThroughput: ok.length / durationS,
    outputTokensPerSecond: totalOutputTokens / durationS,
    totalTokensPerSecond: (totalOutputTokens + totalPromptTokens) / durationS,
    totalPromptTokens,
    totalOutputTokens,
    ...(goodput ? { goodput } : {}),
    tokenSource,
    errors: [...errors].map(([message, count]) => ({ message, count })),
  }
}
