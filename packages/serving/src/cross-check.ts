/**
 * The client's figures next to the server's own: some servers return per-request `timings`
 * (prompt_ms for prompt processing, predicted_ms over predicted_n generated tokens), and engines
 * export Prometheus counters and gauges under the names their serving capability maps
 * (ServingMetricNames). The difference says how much of what the client saw was the server's
 * compute and how much was queueing, HTTP and streaming.
 */
import type { ServingMetricNames } from '@kerneltune/core'
import { metricValue, type PrometheusMetrics } from './prometheus.ts'
import { tpotOf } from './metrics.ts'
import type { RequestRecord } from './request.ts'
import { summarize, type Distribution } from './summary.ts'

export interface ServerReported {
  /** Prometheus counter deltas over the load (what the server says it processed). */
  readonly promptTokens?: number
  /** Prompt tokens served from the server's prompt cache (not processed again). */
  readonly cachedPromptTokens?: number
  readonly outputTokens?: number
  /** The server's own throughput gauges (as the engine defines them: some average over the server's lifetime). */
  readonly promptTokensPerSecond?: number
  readonly outputTokensPerSecond?: number
  /** From per-request timings: mean prompt-processing time and mean time per generated token. */
  readonly promptMs?: Distribution
  readonly msPerOutputToken?: Distribution
}

export interface CrossCheck {
  readonly serverReported: ServerReported
  /** Relative gaps (client - server) / server; absent where either side is missing. */
  readonly gaps: {
    /** Client TTFT against the server's prompt time: the client also sees queueing and the first token. */
    readonly ttftVsPromptMs?: { readonly client: number; readonly server: number; readonly relative: number }
    readonly tpotVsServerMs?: { readonly client: number; readonly server: number; readonly relative: number }
    readonly outputTokens?: { readonly client: number; readonly server: number; readonly relative: number }
    readonly promptTokens?: { readonly client: number; readonly server: number; readonly relative: number }
  }
  /** One line per comparison, for people. */
  readonly lines: readonly string[]
}

const gap = (client: number, server: number) => ({ client, server, relative: server === 0 ? Number.NaN : (client - server) / server })
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)

/** `names`: the engine's Prometheus names (its serving capability's `metrics`); without them no counter is read. */
export function crossCheck(records: readonly RequestRecord[], before?: PrometheusMetrics, after?: PrometheusMetrics, names?: ServingMetricNames): CrossCheck {
  const ok = records.filter((r) => r.ok)
  const timed = ok.filter((r) => r.serverTimings?.promptMs !== undefined && r.serverTimings.predictedMs !== undefined && (r.serverTimings.predictedN ?? 0) > 0)
  const promptMs = timed.map((r) => r.serverTimings!.promptMs!)
  const perToken = timed.map((r) => r.serverTimings!.predictedMs! / r.serverTimings!.predictedN!)
  const reported: Record<string, unknown> = {}
  if (timed.length) {
    reported.promptMs = summarize(promptMs)
    reported.msPerOutputToken = summarize(perToken)
  }
  const delta = (name: string | undefined) => {
    if (name === undefined) return undefined
    const a = after ? metricValue(after, name) : undefined
    const b = before ? metricValue(before, name) ?? 0 : undefined
    return a === undefined || b === undefined ? undefined : a - b
  }
  const out = delta(names?.names.generatedTokens)
  const inp = delta(names?.names.promptTokens)
  if (out !== undefined) reported.outputTokens = out
  if (inp !== undefined) reported.promptTokens = inp
  const cached = delta(names?.cachedPromptTokens)
  if (cached !== undefined) reported.cachedPromptTokens = cached
  const gauge = (name: string | undefined) => (after && name !== undefined ? metricValue(after, name) : undefined)
  const outRate = gauge(names?.generatedTokensPerSecond)
  const inRate = gauge(names?.promptTokensPerSecond)
  if (outRate !== undefined) reported.outputTokensPerSecond = outRate
  if (inRate !== undefined) reported.promptTokensPerSecond = inRate

  const gaps: Record<string, ReturnType<typeof gap>> = {}
  const lines: string[] = []
  if (timed.length) {
    const ttft = mean(timed.map((r) => r.ttftMs!))
    gaps.ttftVsPromptMs = gap(ttft, mean(promptMs))
    lines.push(`TTFT ${ttft.toFixed(1)} ms on the client vs ${mean(promptMs).toFixed(1)} ms of prompt processing on the server (${pct(gaps.ttftVsPromptMs.relative)}: queueing, HTTP and the first token)`)
    const tpots = timed.map(tpotOf).filter((x): x is number => x !== undefined)
    if (tpots.length) {
      gaps.tpotVsServerMs = gap(mean(tpots), mean(perToken))
      lines.push(`TPOT ${mean(tpots).toFixed(2)} ms on the client vs ${mean(perToken).toFixed(2)} ms per generated token on the server (${pct(gaps.tpotVsServerMs.relative)})`)
    }
  } else {
    lines.push('the server returned no per-request timings (some engines send them with each response, others do not)')
  }
  const clientOut = ok.reduce((a, r) => a + (r.outputTokens ?? 0), 0)
  const clientIn = ok.reduce((a, r) => a + (r.promptTokens ?? 0), 0)
  if (out !== undefined) {
    gaps.outputTokens = gap(clientOut, out)
    lines.push(`output tokens: ${clientOut} in the responses' usage vs ${out} counted by the server's /metrics (${pct(gaps.outputTokens.relative)})`)
  }
  if (inp !== undefined && clientIn > 0) {
    gaps.promptTokens = gap(clientIn, inp)
    lines.push(`prompt tokens: ${clientIn} in usage vs ${inp} processed per /metrics (${pct(gaps.promptTokens.relative)})${cached ? `; ${cached} came from the prompt cache` : ''}`)
  }
  if (before === undefined && after === undefined) lines.push(`no Prometheus metrics were read${names ? ` (${names.path ?? '/metrics'} did not answer)` : ' (no metric names for this server)'}`)
  return { serverReported: reported as ServerReported, gaps, lines }
}
