/**
 * Which rows of a load-generator result to distrust (issue 23 item 8): a run whose mean and median
 * disagree, or whose streams stalled, describes the machine's other jobs more than the server, and
 * a ratio computed from its mean misleads. The rule reads only mean, median (p50) and p99, so it
 * applies to results written before max was recorded too.
 */

export interface Spread {
  readonly mean: number
  readonly p50: number
  readonly p99: number
  readonly max?: number
}

/** One load level's latency figures, as bench/serving-overhead.bench.ts writes them. */
export interface RowFigures {
  readonly ttftMs: Spread
  readonly itlMs: Spread
  readonly e2eMs: Spread
}

export interface RowFlag {
  readonly metric: 'ttftMs' | 'e2eMs' | 'itlMs'
  readonly rule: 'mean-median' | 'stall'
  /** The ratio the rule computed, and the threshold it exceeded. */
  readonly value: number
  readonly threshold: number
  readonly reason: string
}

/**
 * |mean − median| / median above this flags TTFT or E2E: the mean is more than twice the median
 * (or under zero), so a few requests carry most of the time. The committed 8-in-flight llama-server
 * row, a healthy run with a heavy tail from continuous batching, reads 0.62 on E2E; the stalled
 * 1-in-flight row reads 2.1 on TTFT.
 */
export const MEAN_MEDIAN_LIMIT = 1
/**
 * ITL p99 above this many median TTFTs flags a stall. A gap between two tokens of one stream is
 * one decode step, or at most one other request's prefill slipped in by continuous batching (about
 * a TTFT); a gap of several TTFTs in 1% of the gaps is the server waiting for a CPU.
 */
export const STALL_LIMIT = 5

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3))

/**
 * The flags of one row; empty when the row can be trusted. ITL is not held to the mean-median
 * rule: with several streams, or with several tokens in one network read, most gaps are about 0 ms
 * and the median says nothing (the healthy 8-in-flight row: median 0.0015 ms, mean 3.9 ms), so
 * ITL is judged by the stall rule instead.
 */
export function flagRow(r: RowFigures): RowFlag[] {
  const flags: RowFlag[] = []
  for (const metric of ['ttftMs', 'e2eMs'] as const) {
    const { mean, p50 } = r[metric]
    if (!(p50 > 0) || !Number.isFinite(mean)) continue
    const value = Math.abs(mean - p50) / p50
    if (value > MEAN_MEDIAN_LIMIT) {
      flags.push({ metric, rule: 'mean-median', value, threshold: MEAN_MEDIAN_LIMIT, reason: `${metric === 'ttftMs' ? 'TTFT' : 'E2E'} mean ${fmt(mean)} ms is ${fmt(mean / p50)}x the median ${fmt(p50)} ms` })
    }
  }
  const ttft = r.ttftMs.p50
  if (ttft > 0 && Number.isFinite(r.itlMs.p99)) {
    const value = r.itlMs.p99 / ttft
    if (value > STALL_LIMIT) {
      flags.push({ metric: 'itlMs', rule: 'stall', value, threshold: STALL_LIMIT, reason: `ITL p99 ${fmt(r.itlMs.p99)} ms is ${fmt(value)}x the median TTFT ${fmt(ttft)} ms: streams stalled` })
    }
  }
  return flags
}
