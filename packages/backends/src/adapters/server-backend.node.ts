/**
 * A measurement backend that measures a combination as a server under load: translate, launch,
 * warm up, put the load on it `repetitions` times, stop (or, with
 * keepServers, keep it running for the combination's next measurement). Each repetition is one load run; its
 * figures map to the shared repetition metrics as:
 *   decodeTps = throughputTps = output tokens per second of the whole load (all streams together),
 *   prefillTps = mean over requests of prompt tokens / TTFT, ttftMs = mean TTFT,
 *   latencyMs = mean end-to-end latency, breakdown = TPOT, ITL and tail percentiles,
 *   serving = the load run's duration and every request (TTFT, chunk gaps, E2E, tokens, ok), which
 *   runs and tune sessions judge latency objectives and goodput by.
 * The engine version read from the server and the device are in every result.
 *
 * @example
 * ```ts
 * const backend = serverBackend({ target: { kind: 'engine', engine, model: 'm.gguf' }, load: { workload: { kind: 'synthetic', promptTokens: 32, outputTokens: 16 }, requests: 8 }, level: { concurrency: 4 } })
 * const r = await backend.measure({ combo: { threads: '2' }, repetitions: 3, warmups: 1 })
 * ```
 */
import { existsSync } from 'node:fs'
import type { MeasurementBackend, MeasurementLaunch, MeasurementRequest, MeasurementResult, PreparedMeasurement, RepetitionMetrics, ServedRequest } from '@kerneltune/core'
import type { LoadResult } from '@kerneltune/serving'
import { createServerPool, findServerBinary, runServingSession, type LaunchPhases, type LoadLevel, type PoolLaunch, type PoolStats, type ServerTarget, type SessionOptions, type SessionResult } from '@kerneltune/serving/node'

export const SERVER_BACKEND = 'server'

export interface ServerBackendOptions {
  readonly target: ServerTarget
  readonly load: SessionOptions['load']
  /** The load level of every repetition. Default closed loop, concurrency 1. */
  readonly level?: LoadLevel
  readonly name?: string
  readonly device?: string
  readonly readyTimeoutMs?: number
  /**
   * Take the load from the request's workload when it has one: promptTokens and generatedTokens
   * become the request lengths, batch the closed-loop concurrency. Default true.
   */
  readonly useRequestWorkload?: boolean
  /** Measured requests per repetition when the workload sets the concurrency: this many per concurrent stream. Default 4. */
  readonly requestsPerStream?: number
  /** Send warm-up requests one at a time (as before issue 35, for comparison) instead of in waves of the level's concurrency. Default false. */
  readonly serialWarmups?: boolean
  /** Receives every session, for callers that want the full serving metrics. */
  readonly onSession?: (session: SessionResult, request: MeasurementRequest) => void
  /**
   * Keep each combination's server running between measure() calls (one server per combination,
   * launched on its first measurement; `max` bounds how many are up, least recently used stopped
   * first). For designs that revisit combinations, such as the interleaved sweep: a repetition is
   * then warm-up + load on a running server instead of a launch. Call close() when done. Default
   * false: a server per measure() call.
   */
  readonly keepServers?: boolean | {
    readonly max?: number
    /**
     * prepare() launches the servers this many at a time (bounded by `max`). Default 1. Absent
     * keepServers there is no prepare(): a server per measurement has nothing to launch ahead.
     */
    readonly parallelLaunches?: number
  }
}

export interface ServerBackend extends MeasurementBackend {
  /** Stops every server kept running (keepServers); a no-op otherwise. The backend can not measure afterwards when it kept servers. */
  close(): Promise<void>
  /** Launch counts of the kept servers (keepServers), else undefined. */
  poolStats(): PoolStats | undefined
  /** Every launch of a kept server with its phases (keepServers), else undefined. */
  launches(): readonly PoolLaunch[] | undefined
}

const launchOf = (phases: LaunchPhases | undefined, reason: string, error?: string): MeasurementLaunch | undefined =>
  phases || error ? { reason, ok: error === undefined, ...(error === undefined ? {} : { error }), ...(phases ? { phases: { ...phases } } : {}) } : undefined

const finite = (x: number) => Number.isFinite(x)

/** One load run as the shared repetition metrics. */
export function repetitionOf(r: LoadResult): RepetitionMetrics {
  const m = r.metrics
  const prefill = r.records
    .filter((x) => x.ok && x.ttftMs !== undefined && x.ttftMs > 0 && x.promptTokens !== undefined)
    .map((x) => x.promptTokens! / (x.ttftMs! / 1000))
  const breakdown: Record<string, number> = {}
  const put = (k: string, v: number) => finite(v) && (breakdown[k] = v)
  put('tpotMeanMs', m.tpotMs.mean)
  put('itlMeanMs', m.itlMs.mean)
  put('itlP99Ms', m.itlMs.p99)
  put('ttftP99Ms', m.ttftMs.p99)
  put('e2eP99Ms', m.e2eMs.p99)
  put('requestThroughput', m.requestThroughput)
  return {
    latencyMs: m.e2eMs.mean,
    throughputTps: m.outputTokensPerSecond,
    decodeTps: m.outputTokensPerSecond,
    ...(prefill.length ? { prefillTps: prefill.reduce((a, b) => a + b, 0) / prefill.length } : {}),
    ...(finite(m.ttftMs.mean) ? { ttftMs: m.ttftMs.mean } : {}),
    breakdown,
    serving: { durationS: m.durationS, requests: r.records.map(servedRequest) },
  }
}

/** A request as runs store it: what objectives read, without the server's own timings. */
const servedRequest = (x: LoadResult['records'][number]): ServedRequest => ({
  ok: x.ok, startMs: x.startMs, e2eMs: x.e2eMs, itlMs: [...x.itlMs],
  ...(x.ttftMs === undefined ? {} : { ttftMs: x.ttftMs }), ...(x.outputTokens === undefined ? {} : { outputTokens: x.outputTokens }), ...(x.error === undefined ? {} : { error: x.error }),
})

export function serverBackend(o: ServerBackendOptions): ServerBackend {
  const loadFor = (request: MeasurementRequest): { level: LoadLevel; load: SessionOptions['load'] } => {
    const w = request.workload
    if (!w || o.useRequestWorkload === false) return { level: o.level ?? { concurrency: 1 }, load: o.load }
    const concurrency = Math.max(1, w.batch)
    return {
      level: { concurrency },
      load: { ...o.load, workload: { kind: 'synthetic', promptTokens: w.promptTokens, outputTokens: w.generatedTokens }, requests: Math.max(o.load.requests, concurrency * (o.requestsPerStream ?? 4)) },
    }
  }
  const keep = o.keepServers === undefined || o.keepServers === false ? undefined : o.keepServers === true ? {} : o.keepServers
  const pool = keep
    ? createServerPool({ target: o.target, ...(keep.max === undefined ? {} : { max: keep.max }), ...(o.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: o.readyTimeoutMs }), ...(o.device === undefined ? {} : { device: o.device }) })
    : undefined
  // A warm-up is one wave of requests (one per concurrent stream), sent together as the
  // measurement will send them; 0 means none, for a kept server that is already warm.
  const warmRequestsOf = (request: MeasurementRequest, level: LoadLevel) => Math.max(0, request.warmups) * Math.max(1, level.concurrency ?? 1)
  const prepare = pool
    ? async (requests: readonly MeasurementRequest[]): Promise<readonly PreparedMeasurement[]> => {
        if (requests.length === 0) return []
        const first = requests[0]!
        const { level, load } = loadFor(first)
        const signal = first.signal
        const out = await pool.prelaunch(requests.map((r) => r.combo), {
          parallel: keep!.parallelLaunches ?? 1,
          warm: { load, level, requests: warmRequestsOf(first, level) },
          ...(signal ? { signal } : {}),
        })
        return out.map((p) => {
          const launch = launchOf(p.phases, 'pre-launch', p.error)
          return { ok: p.ok, warmed: p.warmed, ...(p.error === undefined ? {} : { error: p.error }), ...(launch ? { launch } : {}) }
        })
      }
    : undefined
  return {
    ...(prepare ? { prepare } : {}),
    name: o.name ?? SERVER_BACKEND,
    kind: 'measurement-backend',
    apiVersion: 1,
    description: 'launches the engine as a server per combination (or uses a running one) and measures it under OpenAI-compatible streaming load: TTFT, TPOT, ITL, latency and token throughput',
    simulated: false,
    available() {
      const t = o.target
      if (t.kind !== 'engine') return { ok: true }
      if (t.binary !== undefined) return existsSync(t.binary) ? { ok: true } : { ok: false, reason: `the server binary ${t.binary} does not exist` }
      const serving = t.engine.serving
      if (!serving) return { ok: false, reason: `engine ${t.engine.name} has no serving capability` }
      return findServerBinary(t.engine.name, serving) ? { ok: true } : { ok: false, reason: `${t.engine.name} is not installed: ${serving.binary.installHint}` }
    },
    async measure(request: MeasurementRequest): Promise<MeasurementResult> {
      const { level, load } = loadFor(request)
      const warmRequests = warmRequestsOf(request, level)
      let done = 0
      const common = {
        load: { ...load, warmups: warmRequests },
        warmupConcurrency: o.serialWarmups ? 1 : Math.max(1, level.concurrency ?? 1),
        levels: [level],
        runs: request.repetitions,
        ...(request.signal ? { signal: request.signal } : {}),
        onProgress: (msg: string) => void (msg.startsWith('load') && request.onProgress?.(done++, request.repetitions)),
      }
      const session = pool
        ? await pool.session(request.combo, common)
        : await runServingSession({
            ...common,
            target: o.target,
            combo: request.combo,
            ...(o.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: o.readyTimeoutMs }),
            ...(o.device === undefined ? {} : { device: o.device }),
          })
      o.onSession?.(session, request)
      const failed = session.levels.filter((l) => l.metrics.requests.completed === 0)
      if (failed.length) {
        const why = failed[0]!.metrics.errors.map((e) => `${e.message} (${e.count}x)`).join('; ')
        throw new Error(`every request of a load run failed: ${why}`)
      }
      const last = session.levels[session.levels.length - 1]!
      const launch = launchOf(session.launch, session.launchReason ?? 'measurement')
      return {
        ...(launch ? { launch } : {}),
        backend: o.name ?? SERVER_BACKEND,
        simulated: false,
        device: session.device,
        repetitions: session.levels.map(repetitionOf),
        notes: [
          `server version: ${session.server.version}`,
          ...(session.server.argv.length ? [`server argv: ${session.server.argv.join(' ')}`] : []),
          `load: ${last.mode} loop, ${last.mode === 'open' ? `${last.rate} requests/s` : `concurrency ${last.concurrency ?? 1}`}, ${last.records.length} requests per repetition; token counts from ${last.metrics.tokenSource}`,
          ...session.levels.flatMap((l, i) => l.metrics.errors.map((e) => `repetition ${i + 1}: ${e.count} of ${l.records.length} requests failed: ${e.message}`)),
          ...last.crossCheck.lines,
          ...session.notes,
        ],
      }
    },
    close: async () => pool?.close(),
    poolStats: () => pool?.stats(),
    launches: () => pool?.launches(),
  }
}
