/**
 * A load generator for OpenAI-compatible servers. Closed loop: `concurrency` workers each send
 * the next request as soon as their previous one finishes. Open loop: requests arrive as a
 * Poisson process at `rate` per second (seeded exponential gaps), whether or not earlier ones
 * finished, optionally capped at `concurrency` in flight. Warm-up requests run first and are not
 * counted.
 *
 * @example
 * ```ts
 * const r = await runLoad({ baseUrl: 'http://127.0.0.1:8080', workload: { kind: 'synthetic', promptTokens: 32, outputTokens: 16 }, requests: 16, concurrency: 4 })
 * console.log(r.metrics.outputTokensPerSecond, r.metrics.ttftMs.p99)
 * ```
 */
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { computeServingMetrics, type LatencyObjectives, type ServingMetrics } from './metrics.ts'
import { exponential, seededRandom } from './prng.ts'
import { sendRequest, type RequestRecord } from './request.ts'
import { requestSpec, WorkloadSpecSchema, type ServingApi, type WorkloadSpec } from './workload.ts'

export interface LoadOptions {
  /** e.g. http://127.0.0.1:8080 */
  readonly baseUrl: string
  readonly api?: ServingApi
  readonly model?: string
  readonly workload: WorkloadSpec
  /** Measured requests. */
  readonly requests: number
  /** Unmeasured requests sent first, `warmupConcurrency` at a time. Default 1. */
  readonly warmups?: number
  /**
   * Warm-up requests in flight at once. Default 1 (one at a time). A server measured at N in
   * flight is warmed best by waves of N, the batch shape it will decode: sent one at a time, a
   * wave of 16 full-length requests costs 16 requests' time (issue 35: part of each first visit).
   */
  readonly warmupConcurrency?: number
  /** Closed loop: requests in flight. Open loop: the cap on requests in flight (default none). */
  readonly concurrency?: number
  /** Open loop: mean arrivals per second (Poisson). Absent: closed loop. */
  readonly rate?: number
  readonly seed?: number
  readonly objectives?: LatencyObjectives
  /** Per request. Default 120 s. */
  readonly timeoutMs?: number
  readonly extraBody?: Readonly<Record<string, unknown>>
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
  readonly onRequestDone?: (done: number, total: number) => void
  /** Called after the warm-ups, before the first measured request (e.g. to read server counters). */
  readonly afterWarmup?: () => Promise<void>
}

export interface LoadResult {
  readonly mode: 'closed' | 'open'
  readonly concurrency?: number
  readonly rate?: number
  readonly seed: number
  readonly metrics: ServingMetrics
  readonly records: readonly RequestRecord[]
}

function check(o: LoadOptions): void {
  const bad: string[] = []
  if (!Number.isInteger(o.requests) || o.requests < 1) bad.push(`requests must be a positive integer, got ${o.requests}`)
  if (o.concurrency !== undefined && (!Number.isInteger(o.concurrency) || o.concurrency < 1)) bad.push(`concurrency must be a positive integer, got ${o.concurrency}`)
  if (o.rate !== undefined && !(o.rate > 0)) bad.push(`rate must be above 0 requests/s, got ${o.rate}`)
  if (o.warmups !== undefined && (!Number.isInteger(o.warmups) || o.warmups < 0)) bad.push(`warmups must be a non-negative integer, got ${o.warmups}`)
  if (o.warmupConcurrency !== undefined && (!Number.isInteger(o.warmupConcurrency) || o.warmupConcurrency < 1)) bad.push(`warmupConcurrency must be a positive integer, got ${o.warmupConcurrency}`)
  if (!/^https?:\/\//.test(o.baseUrl)) bad.push(`baseUrl must be an http(s) URL, got ${o.baseUrl}`)
  if (bad.length) throw new KerneltuneError('INVALID_INPUT', `load options: ${bad.join('; ')}`)
  parseWith(WorkloadSpecSchema, o.workload, 'load workload')
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve()
    const t = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
  })

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  check(o)
  const api = o.api ?? 'completions'
  const seed = o.seed ?? 1
  const random = seededRandom(seed)
  const arrivals = seededRandom(seed ^ 0x9e3779b9)
  const send = (i: number) =>
    sendRequest({
      baseUrl: o.baseUrl,
      api,
      ...(o.model ? { model: o.model } : {}),
      spec: requestSpec(o.workload, api, i, random),
      timeoutMs: o.timeoutMs ?? 120_000,
      ...(o.extraBody ? { extraBody: o.extraBody } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.fetch ? { fetch: o.fetch } : {}),
    })
  const warmups = o.warmups ?? 1
  const wave = o.warmupConcurrency ?? 1
  for (let w = 0; w < warmups; w += wave) {
    const sent = Array.from({ length: Math.min(wave, warmups - w) }, (_, i) => send(-1 - w - i))
    const failed = (await Promise.all(sent)).find((x) => !x.ok)
    if (failed) throw new KerneltuneError('MEASUREMENT_FAILED', `the warm-up request to ${o.baseUrl} failed: ${failed.error}; check that the server is up and speaks the OpenAI ${api} API`)
  }
  await o.afterWarmup?.()
  const records: RequestRecord[] = new Array(o.requests)
  let done = 0
  const finish = (i: number, r: RequestRecord) => {
    records[i] = r
    o.onRequestDone?.(++done, o.requests)
  }
  if (o.rate === undefined) {
    const workers = Math.min(o.concurrency ?? 1, o.requests)
    let next = 0
    await Promise.all(Array.from({ length: workers }, async () => {
      while (next < o.requests && !o.signal?.aborted) {
        const i = next++
        finish(i, await send(i))
      }
    }))
  } else {
    // Arrival times are fixed up front from the seed, so two runs with one seed offer the same load.
    const cap = o.concurrency ?? Infinity
    let inFlight = 0
    const waiters: (() => void)[] = []
    const pending: Promise<void>[] = []
    const t0 = performance.now()
    let at = 0
    for (let i = 0; i < o.requests && !o.signal?.aborted; i++) {
      if (i > 0) at += exponential(arrivals, o.rate) * 1000
      await sleep(t0 + at - performance.now(), o.signal)
      while (inFlight >= cap) await new Promise<void>((r) => waiters.push(r))
      inFlight++
      pending.push(send(i).then((r) => {
        finish(i, r)
        inFlight--
        waiters.shift()?.()
      }))
    }
    await Promise.all(pending)
  }
  if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the load was cancelled')
  return {
    mode: o.rate === undefined ? 'closed' : 'open',
    ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
    ...(o.rate === undefined ? {} : { rate: o.rate }),
    seed,
    metrics: computeServingMetrics(records, o.objectives),
    records,
  }
}
