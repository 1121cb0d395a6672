/**
 * The gateway: an OpenAI-compatible HTTP endpoint in front of one server per arm.
 *
 * - POST /v1/completions and /v1/chat/completions (streamed or not) go to the arm the router
 *   picks. The request body is forwarded as received; the arm's status, headers (less hop-by-hop
 *   ones) and body bytes go back unchanged, chunk by chunk, with x-kerneltune-arm added.
 * - Nothing is written to the client before the arm's first body byte, so an arm that fails
 *   before that (connection refused or reset, a 5xx) costs nothing: the request goes once to
 *   another arm. An answer cut after its first byte cannot be replayed byte for byte (ids and
 *   timestamps differ between servers) and is counted as failed.
 * - A launched arm whose server exits is marked down and relaunched in the background; a
 *   running endpoint that refuses connections is marked down and polled until /health answers.
 * - GET /metrics (Prometheus), /health, /gateway/status (JSON), /v1/models (from the fallback).
 * - stop() drains: no new requests (503), in-flight ones finish (or are cut at the drain
 *   timeout), then every launched server is stopped (process group, no orphan: launcher.node.ts).
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { KerneltuneError, type Combo } from '@kerneltune/core'
import type { PolicyInput } from '@kerneltune/bandit'
import type { LatencyObjective } from '@kerneltune/serving'
import { openServer, type OpenServer, type ServerTarget } from '@kerneltune/serving/node'
import { renderMetrics, type GatewayTotals } from '../metrics.ts'
import { apiError, COMPLETION_PATHS, forwardHeaders, json, readBody } from './http.node.ts'
import { observeResponse } from '../observe.ts'
import { judge, type Observation } from '../reward.ts'
import { Router, type ArmSnapshot, type GuardOptions, type Reason } from '../router.ts'

export interface GatewayArmSpec {
  readonly id: string
  /** How the arm's server comes to exist: an engine translation of `combo`, or a running endpoint. */
  readonly target: ServerTarget
  readonly combo?: Combo
}

export interface Decision {
  readonly requestId: number
  /** ms since the gateway started. */
  readonly atMs: number
  readonly arm: string
  readonly reason: Reason
  readonly ok: boolean
  readonly met: boolean
  readonly reward: number
  readonly ttftMs?: number
  readonly tpotMs?: number
  readonly e2eMs: number
  readonly outputTokens?: number
  /** The arm tried first when this request was retried. */
  readonly retriedFrom?: string
}

export interface GatewayOptions {
  readonly arms: readonly GatewayArmSpec[]
  /** The safe arm (the defaults). */
  readonly fallback: string
  readonly objectives: readonly LatencyObjective[]
  readonly policy?: PolicyInput
  readonly seed?: number
  readonly guard?: GuardOptions
  readonly host?: string
  /** Default: a free port. */
  readonly port?: number
  readonly readyTimeoutMs?: number
  /** Relaunch a crashed arm's server. Default true. */
  readonly relaunch?: boolean
  /** How long stop() waits for in-flight requests. Default 30 s. */
  readonly drainTimeoutMs?: number
  readonly onDecision?: (d: Decision) => void
  /** Every body chunk an arm sent for a request, as it arrived (tests compare it with what the client got). */
  readonly onUpstreamChunk?: (requestId: number, arm: string, chunk: Buffer) => void
  readonly log?: (line: string) => void
}

export interface ArmInfo {
  readonly id: string
  readonly combo: Combo
  readonly baseUrl: string | null
  readonly pid: number | null
  readonly argv: readonly string[]
  readonly version: string | null
  readonly launched: boolean
  readonly up: boolean
  readonly launches: number
  /** Requests on their way to or from this arm now. */
  readonly inFlight: number
}

export interface GatewayStatus {
  readonly url: string
  readonly policy: string
  readonly fallback: string
  readonly objectives: readonly LatencyObjective[]
  readonly draining: boolean
  readonly totals: GatewayTotals
  readonly arms: readonly (ArmSnapshot & { readonly server: ArmInfo })[]
}

export interface Gateway {
  readonly url: string
  readonly port: number
  status(): GatewayStatus
  /** The live state of an arm's server (for tests and benchmarks: its pid, its URL). */
  arm(id: string): ArmInfo
  /** Drains, stops every launched server; resolves with the final status. */
  stop(): Promise<GatewayStatus>
}

interface ArmRuntime {
  readonly spec: GatewayArmSpec
  server: OpenServer | undefined
  launches: number
  relaunching: boolean
  inFlight: number
}

export async function startGateway(o: GatewayOptions): Promise<Gateway> {
  if (o.arms.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the gateway needs at least one arm')
  if (new Set(o.arms.map((a) => a.id)).size !== o.arms.length) throw new KerneltuneError('INVALID_INPUT', `arm ids must be unique: ${o.arms.map((a) => a.id).join(', ')}`)
  if (o.objectives.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the gateway needs at least one latency objective to judge requests by (e.g. ttft_p99_ms=500)')
  const router = new Router({ arms: o.arms.map((a) => a.id), fallback: o.fallback, ...(o.policy ? { policy: o.policy } : {}), ...(o.seed === undefined ? {} : { seed: o.seed }), ...(o.guard ? { guard: o.guard } : {}) })
  const log = o.log ?? (() => {})
  const t0 = performance.now()
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const runtimes = new Map<string, ArmRuntime>(o.arms.map((spec) => [spec.id, { spec, server: undefined, launches: 0, relaunching: false, inFlight: 0 }]))
  let stopping = false
  let draining = false
  let nextId = 1
  let received = 0
  let failed = 0
  let retries = 0
  let relaunches = 0
  let staleConnections = 0
  let inFlight = 0
  let drained: (() => void) | undefined

  const watch = (rt: ArmRuntime, s: OpenServer) => {
    void s.launched?.exited.then(() => {
      if (stopping || rt.server !== s) return
      log(`arm ${rt.spec.id}: its server (pid ${s.server.pid}) exited; relaunching in the background`)
      router.setUp(rt.spec.id, false)
      if (o.relaunch !== false) void relaunch(rt)
    })
  }

  const open = async (rt: ArmRuntime): Promise<OpenServer> => {
    rt.launches++
    const s = await openServer({ target: rt.spec.target, combo: rt.spec.combo ?? {}, readyTimeoutMs: o.readyTimeoutMs ?? 120_000 })
    if (stopping) {
      await s.stop()
      throw new KerneltuneError('CANCELLED', 'the gateway stopped while the arm was starting')
    }
    rt.server = s
    watch(rt, s)
    router.setUp(rt.spec.id, true)
    return s
  }

  /** Relaunches (launched arm) or polls (endpoint arm) until the arm is up again or the gateway stops. */
  const relaunch = async (rt: ArmRuntime) => {
    if (rt.relaunching) return
    rt.relaunching = true
    try {
      for (let attempt = 0; !stopping; attempt++) {
        try {
          if (rt.spec.target.kind === 'endpoint') {
            const res = await fetch(`${rt.spec.target.url.replace(/\/$/, '')}/health`, { signal: AbortSignal.timeout(2000) })
            await res.arrayBuffer().catch(() => {})
            if (res.status === 200) {
              router.setUp(rt.spec.id, true)
              log(`arm ${rt.spec.id}: the endpoint answers again`)
              return
            }
          } else {
            const old = rt.server
            rt.server = undefined
            await old?.stop()
            const fresh = await open(rt)
            relaunches++
            log(`arm ${rt.spec.id}: relaunched (pid ${fresh.server.pid})`)
            return
          }
        } catch (e) {
          if (stopping) return
          log(`arm ${rt.spec.id}: relaunch attempt ${attempt + 1} failed: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`)
        }
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 10_000)))
      }
    } finally {
      rt.relaunching = false
    }
  }

  type Attempt = { kind: 'done'; obs: Observation } | { kind: 'retryable'; why: string } | { kind: 'stale' } | { kind: 'cut'; obs: Observation; why: string }

  /**
   * One try on one arm; resolves 'retryable' when nothing was written to the client, and 'stale'
   * when a pooled keep-alive connection turned out closed by the server (llama-server closes idle
   * ones after 5 s): the request never reached the arm, so it goes again to the same arm on a
   * fresh connection and counts against nobody.
   */
  const attempt = (rt: ArmRuntime, req: IncomingMessage, body: Buffer, streamed: boolean, res: ServerResponse, requestId: number, startMs: number, fresh = false): Promise<Attempt> =>
    new Promise((resolve) => {
      const base = rt.server?.server.baseUrl
      if (!base) return resolve({ kind: 'retryable', why: 'the arm has no server' })
      const url = new URL(req.url ?? '/', base)
      const observer = observeResponse({ startMs, streamed })
      let wrote = false
      let settled = false
      const settle = (a: Attempt) => {
        if (!settled) {
          settled = true
          resolve(a)
        }
      }
      const up = httpRequest(url, { method: req.method, headers: { ...forwardHeaders(req.headers), host: url.host, 'content-length': String(body.length) }, agent: fresh ? false : agent }, (ures) => {
        const status = ures.statusCode ?? 502
        // A 5xx before any byte went out (llama-server: 503 while loading): another arm may serve it.
        if (status >= 500) {
          ures.resume()
          return settle({ kind: 'retryable', why: `HTTP ${status}` })
        }
        const head = () => {
          if (wrote) return
          wrote = true
          res.writeHead(status, { ...forwardHeaders(ures.headers), 'x-kerneltune-arm': rt.spec.id, 'x-kerneltune-request-id': String(requestId) })
        }
        ures.on('data', (c: Buffer) => {
          const at = performance.now()
          head()
          o.onUpstreamChunk?.(requestId, rt.spec.id, c)
          observer.chunk(c, at)
          res.write(c)
        })
        ures.on('end', () => {
          head()
          res.end()
          settle({ kind: 'done', obs: observer.end(performance.now(), ures.complete && status < 300) })
        })
        ures.on('error', (e) => {
          if (!wrote) return settle({ kind: 'retryable', why: e.message })
          res.destroy(e)
          settle({ kind: 'cut', obs: observer.end(performance.now(), false), why: e.message })
        })
        ures.on('close', () => {
          if (settled) return
          if (!wrote) return settle({ kind: 'retryable', why: 'the arm closed the connection before answering' })
          res.destroy()
          settle({ kind: 'cut', obs: observer.end(performance.now(), false), why: 'the arm closed the connection mid-answer' })
        })
      })
      up.on('error', (e) => {
        const why = `${e.message} ${String((e as { code?: string }).code ?? '')}`.trim()
        if (!wrote && !fresh && up.reusedSocket && /ECONNRESET|EPIPE|socket hang up/i.test(why)) return settle({ kind: 'stale' })
        if (!wrote) return settle({ kind: 'retryable', why })
        res.destroy(e)
        settle({ kind: 'cut', obs: observer.end(performance.now(), false), why: e.message })
      })
      // The client went away: stop the arm's work too.
      res.on('close', () => {
        if (!res.writableFinished) up.destroy()
      })
      up.end(body)
    })

  const complete = async (req: IncomingMessage, res: ServerResponse) => {
    const requestId = nextId++
    received++
    let body: Buffer
    try {
      body = await readBody(req)
    } catch (e) {
      return apiError(res, 413, e instanceof Error ? e.message : String(e), 'invalid_request_error')
    }
    let streamed = false
    try {
      streamed = (JSON.parse(body.toString('utf8')) as { stream?: unknown }).stream === true
    } catch {
      return apiError(res, 400, 'the request body is not JSON', 'invalid_request_error')
    }
    const startMs = performance.now()
    const tried = new Set<string>()
    let retriedFrom: string | undefined
    for (let n = 0; n < 2; n++) {
      const choice = router.choose(tried)
      if (!choice) break
      const rt = runtimes.get(choice.arm)!
      tried.add(choice.arm)
      rt.inFlight++
      const a = await attempt(rt, req, body, streamed, res, requestId, startMs)
        .then((first) => (first.kind === 'stale' ? (staleConnections++, attempt(rt, req, body, streamed, res, requestId, startMs, true)) : first))
        .finally(() => rt.inFlight--)
      if (a.kind === 'stale') throw new Error('unreachable: a fresh connection is never stale')
      if (a.kind === 'retryable') {
        log(`request ${requestId}: arm ${choice.arm} failed before answering (${a.why}); ${n === 0 ? 'retrying on another arm' : 'no retry left'}`)
        router.retriedAway(choice.arm)
        // A launched server that is gone, or an endpoint that refuses connections, is down.
        const gone = rt.server?.launched ? !rt.server.alive() : /ECONNREFUSED|ECONNRESET|socket hang up/.test(a.why)
        if (gone && router.isUp(choice.arm)) {
          router.setUp(choice.arm, false)
          if (o.relaunch !== false || rt.spec.target.kind === 'endpoint') void relaunch(rt)
        }
        if (n === 0) retries++
        retriedFrom ??= choice.arm
        continue
      }
      const j = judge(a.obs, o.objectives)
      router.record(choice.arm, a.obs, j)
      if (a.kind === 'cut') failed++
      o.onDecision?.({
        requestId, atMs: startMs - t0, arm: choice.arm, reason: retriedFrom ? 'retry' : choice.reason, ok: a.obs.ok, met: j.met, reward: j.reward,
        ...(a.obs.ttftMs === undefined ? {} : { ttftMs: a.obs.ttftMs }), ...(a.obs.tpotMs === undefined ? {} : { tpotMs: a.obs.tpotMs }),
        e2eMs: a.obs.e2eMs, ...(a.obs.outputTokens === undefined ? {} : { outputTokens: a.obs.outputTokens }), ...(retriedFrom ? { retriedFrom } : {}),
      })
      return
    }
    failed++
    apiError(res, 503, tried.size ? `no arm could serve the request (tried ${[...tried].join(', ')})` : 'no arm is up', 'server_unavailable')
  }

  const info = (rt: ArmRuntime): ArmInfo => ({
    id: rt.spec.id, combo: rt.spec.combo ?? {}, baseUrl: rt.server?.server.baseUrl ?? null, pid: rt.server?.server.pid ?? null,
    argv: rt.server?.server.argv ?? [], version: rt.server?.server.version ?? null, launched: rt.spec.target.kind !== 'endpoint', up: router.isUp(rt.spec.id), launches: rt.launches, inFlight: rt.inFlight,
  })
  const policyName = router.bandit.policy.kind
  let url = ''
  const status = (): GatewayStatus => ({
    url, policy: policyName, fallback: o.fallback, objectives: o.objectives, draining,
    totals: { requests: received, failed, retries, inFlight, relaunches, staleConnections },
    arms: router.snapshot().map((a) => ({ ...a, server: info(runtimes.get(a.arm)!) })),
  })

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    if (req.method === 'GET' && path === '/metrics') {
      const text = renderMetrics(router.snapshot(), { requests: received, failed, retries, inFlight, relaunches, staleConnections }, policyName)
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      return res.end(text)
    }
    if (req.method === 'GET' && path === '/health') return json(res, router.arms.some((a) => router.isUp(a)) && !draining ? 200 : 503, { status: draining ? 'draining' : 'ok' })
    if (req.method === 'GET' && path === '/gateway/status') return json(res, 200, status())
    if (draining) return apiError(res, 503, 'the gateway is stopping', 'server_unavailable', { connection: 'close' })
    if (req.method === 'GET' && path === '/v1/models') {
      const rt = runtimes.get(router.isUp(o.fallback) ? o.fallback : (router.arms.find((a) => router.isUp(a)) ?? o.fallback))!
      if (!rt.server) return apiError(res, 503, 'no arm is up', 'server_unavailable')
      const up = httpRequest(new URL('/v1/models', rt.server.server.baseUrl), { agent }, (ures) => {
        res.writeHead(ures.statusCode ?? 502, forwardHeaders(ures.headers))
        ures.pipe(res)
      })
      up.on('error', (e) => apiError(res, 502, e.message, 'server_unavailable'))
      return void up.end()
    }
    if (req.method === 'POST' && COMPLETION_PATHS.has(path)) {
      inFlight++
      return void complete(req, res).catch((e) => {
        if (!res.headersSent) apiError(res, 500, e instanceof Error ? e.message : String(e), 'internal_error')
        else res.destroy()
      }).finally(() => {
        inFlight--
        if (inFlight === 0) drained?.()
      })
    }
    apiError(res, 404, `no route ${req.method} ${path}; the gateway serves POST /v1/completions, POST /v1/chat/completions, GET /v1/models, /metrics, /health, /gateway/status`, 'invalid_request_error')
  })

  const stopArms = async () => {
    stopping = true
    await Promise.all([...runtimes.values()].map(async (rt) => {
      const s = rt.server
      rt.server = undefined
      await s?.stop()
    }))
    agent.destroy()
  }

  try {
    // Launch the arms one after another: on a small machine, parallel model loads slow each other past their ready timeouts.
    for (const rt of runtimes.values()) {
      await open(rt)
      log(`arm ${rt.spec.id}: ${rt.server!.server.launched ? `launched (pid ${rt.server!.server.pid}) at` : 'using'} ${rt.server!.server.baseUrl}`)
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve())
    })
  } catch (e) {
    await stopArms()
    server.close()
    throw e
  }
  const port = (server.address() as AddressInfo).port
  const host = o.host ?? '127.0.0.1'
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`

  let stopped: Promise<GatewayStatus> | undefined
  return {
    url, port, status,
    arm: (id) => {
      const rt = runtimes.get(id)
      if (!rt) throw new KerneltuneError('INVALID_INPUT', `unknown arm ${id}`)
      return info(rt)
    },
    stop: () => (stopped ??= (async () => {
      draining = true
      server.close()
      server.closeIdleConnections()
      if (inFlight > 0) {
        const timeout = new Promise<void>((r) => setTimeout(r, o.drainTimeoutMs ?? 30_000).unref())
        await Promise.race([new Promise<void>((r) => (drained = r)), timeout])
        if (inFlight > 0) log(`${inFlight} request(s) still in flight after the drain timeout; cutting them`)
      }
      server.closeAllConnections()
      const final = status()
      await stopArms()
      return { ...final, arms: final.arms.map((a) => ({ ...a, up: false, server: { ...a.server, up: false } })) }
    })()),
  }
}
