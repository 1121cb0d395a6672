/**
 * The gateway: an OpenAI-compatible HTTP endpoint in front of one server per arm.
 *
 * - POST /v1/completions and /v1/chat/completions (streamed or not) go to the arm the router
 *   picks, once the body passed the gateway's checks (../request.ts: size, depth, UTF-8, token
 *   limits, the generation cap); a body that fails them gets a 4xx and reaches no arm. The body
 *   is forwarded as received (rewritten only to write in the generation cap); the arm's status,
 *   headers (less hop-by-hop and CORS ones) and body bytes go back unchanged, chunk by chunk, with
 *   x-kerneltune-arm added.
 * - Nothing is written to the client before the arm's first body byte, so an arm that fails
 *   before that costs nothing: the request goes once to another arm. Whose failure it was
 *   (issue 34 items 19–20, ./forward.node.ts):
 *   - an arm that refuses (≥ 400) is charged only when another arm then serves the request; when
 *     every arm tried refuses, the request was the client's: it gets the last arm's answer and no
 *     arm is charged;
 *   - an arm whose connection breaks is checked at once: when its server is gone, the request
 *     (which may have killed it) is never sent to another arm; the client gets a 502;
 *   - a client that goes away is counted apart (clientAborts), never as the arm's failure.
 *   An answer cut after its first byte cannot be replayed byte for byte (ids and timestamps
 *   differ between servers) and is counted as failed.
 * - Memory: each body is at most limits.maxBodyBytes, and the bodies held at once at most
 *   limits.maxTotalBodyBytes (413 past it); header, request and keep-alive timeouts are the
 *   server's (../access.ts).
 * - Access (../access.ts): no CORS unless origins are allowed, Host checked on loopback, an
 *   optional bearer token for every route but /health.
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
import { checkToken, corsHeaders, hostAllowed, isLoopback, originAllowed, parseOrigin, preflightHeaders, serverTimeouts, tokenAccepted, type Timeouts } from '../access.ts'
import { renderMetrics, type GatewayTotals } from '../metrics.ts'
import { BodyBudget, checkRequest, DEFAULT_LIMITS, type RequestLimits } from '../request.ts'
import { judge, type Observation } from '../reward.ts'
import { Router, type ArmSnapshot, type GuardOptions, type Reason } from '../router.ts'
import { attempt, type Attempt } from './forward.node.ts'
import { apiError, COMPLETION_PATHS, forwardHeaders, json, readBody } from './http.node.ts'

/** Signals that come from outside the server's own code: a process ended by one was not crashed by a request. */
const OUTSIDE_SIGNALS: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'])

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
  /** Bounds of what is forwarded (default DEFAULT_LIMITS: 8 MiB, depth 64, 4096 tokens) and of the bodies held at once (default 64 MiB). */
  readonly limits?: Partial<RequestLimits> & { readonly maxTotalBodyBytes?: number }
  /** Bearer token every route but /health needs (at least 16 characters); none by default. */
  readonly token?: string
  /** Origins whose pages may call the gateway (CORS); none by default. */
  readonly allowOrigins?: readonly string[]
  /** Connection timeouts (default the server's: headers 10 s, request 60 s, keep-alive 5 s). */
  readonly timeouts?: Timeouts
}

/** 64 MiB of request bodies at once: eight of the largest (8 MiB). */
export const DEFAULT_MAX_TOTAL_BODY_BYTES = 64 << 20

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
  checkToken(o.token)
  const allowOrigins = (o.allowOrigins ?? []).map(parseOrigin)
  const timeouts = serverTimeouts(o.timeouts ?? {})
  const limits: RequestLimits = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(o.limits ?? {}).filter(([k, v]) => k !== 'maxTotalBodyBytes' && v !== undefined)) }
  const totalBytes = o.limits?.maxTotalBodyBytes ?? DEFAULT_MAX_TOTAL_BODY_BYTES
  for (const [name, v] of [['maxBodyBytes', limits.maxBodyBytes], ['maxDepth', limits.maxDepth], ['maxTokens', limits.maxTokens], ['maxTotalBodyBytes', totalBytes]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new KerneltuneError('INVALID_INPUT', `limits.${name} must be a positive integer, got ${v}`)
  }
  if (totalBytes < limits.maxBodyBytes) throw new KerneltuneError('INVALID_INPUT', `the total of request bodies held (${totalBytes} bytes) must be at least one body's limit (${limits.maxBodyBytes} bytes)`)
  const budget = new BodyBudget(totalBytes)
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
  let clientErrors = 0
  let clientAborts = 0
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

  /**
   * Whether the arm's server is still there after a broken connection: a launched process that
   * has not exited and answers GET /health with any status. A server killed by the request has
   * closed its listening socket with the connection, so the check answers at once either way.
   */
  const survived = async (s: OpenServer | undefined): Promise<boolean> => {
    if (!s || !s.alive()) return false
    try {
      const r = await fetch(`${s.server.baseUrl.replace(/\/$/, '')}/health`, { signal: AbortSignal.timeout(2000) })
      await r.arrayBuffer().catch(() => {})
      return s.alive()
    } catch {
      return false
    }
  }

  /**
   * Whether the arm's process was ended from outside, by a signal that no request body can send:
   * SIGKILL (an operator, a supervisor, the kernel's OOM killer), SIGTERM, SIGINT, SIGHUP. Such an
   * arm was not crashed by the request it was serving, which may then go to another arm, so
   * killing an arm loses no request. A crash the request can cause (SIGSEGV from a parser's
   * recursion, SIGABRT from an uncaught exception) or an error exit is not: that request stays
   * with its arm (issue 34 item 19). Waits up to 2 s for the exit to be reported; an endpoint arm,
   * whose process is not ours, never counts as ended from outside.
   */
  const endedFromOutside = async (server: OpenServer | undefined): Promise<string | undefined> => {
    const exited = server?.launched?.exited
    if (!exited) return undefined
    const r = await Promise.race([
      exited,
      new Promise<undefined>((resolve) => {
        const timer = setTimeout(resolve, 2000)
        void exited.finally(() => clearTimeout(timer))
      }),
    ])
    return r?.signal && OUTSIDE_SIGNALS.has(r.signal) ? r.signal : undefined
  }

  /** A broken connection to an arm that is gone: crashed (not retried) unless it was ended from outside. */
  const gone = async (server: OpenServer | undefined, why: string): Promise<Outcome> => {
    const signal = await endedFromOutside(server)
    return signal ? { kind: 'unreached', why: `${why} (the arm's server was ended from outside by ${signal})` } : { kind: 'crashed', why }
  }

  const markDown = (rt: ArmRuntime) => {
    if (!router.isUp(rt.spec.id)) return
    router.setUp(rt.spec.id, false)
    if (o.relaunch !== false || rt.spec.target.kind === 'endpoint') void relaunch(rt)
  }

  type Outcome = Attempt | { readonly kind: 'crashed'; readonly why: string }

  /**
   * One arm's try, with a broken connection settled: a pooled keep-alive connection the arm had
   * closed while idle (llama-server closes them after 5 s) is sent again on a fresh one, counting
   * against nobody, but only once the arm is known to be alive: the same reset is what a request
   * that kills the arm looks like.
   */
  const tryArm = async (rt: ArmRuntime, base: Omit<Parameters<typeof attempt>[0], 'baseUrl' | 'agent'>): Promise<Outcome> => {
    // A server already known dead when the request left could not have been killed by it.
    // The server the request went to: a relaunch may replace rt.server while the request is out.
    const server = rt.server
    const wasAlive = server?.alive() ?? false
    let a = await attempt({ ...base, baseUrl: rt.server?.server.baseUrl, agent })
    if (a.kind === 'lost' && !wasAlive) return { kind: 'unreached', why: a.why }
    if (a.kind === 'lost' && a.reusedSocket && !base.clientGone.aborted) {
      if (!(await survived(server))) return gone(server, a.why)
      staleConnections++
      a = await attempt({ ...base, baseUrl: rt.server?.server.baseUrl, agent: false })
    }
    if (a.kind === 'lost' && !base.clientGone.aborted && !(await survived(server))) return gone(server, a.why)
    return a
  }

  const decide = (requestId: number, startMs: number, arm: string, reason: Reason, obs: Observation, retriedFrom: string | undefined) => {
    const j = judge(obs, o.objectives)
    router.record(arm, obs, j)
    o.onDecision?.({
      requestId, atMs: startMs - t0, arm, reason: retriedFrom ? 'retry' : reason, ok: obs.ok, met: j.met, reward: j.reward,
      ...(obs.ttftMs === undefined ? {} : { ttftMs: obs.ttftMs }), ...(obs.tpotMs === undefined ? {} : { tpotMs: obs.tpotMs }),
      e2eMs: obs.e2eMs, ...(obs.outputTokens === undefined ? {} : { outputTokens: obs.outputTokens }), ...(retriedFrom ? { retriedFrom } : {}),
    })
  }

  const complete = async (req: IncomingMessage, res: ServerResponse, path: string, cors: Record<string, string>) => {
    const requestId = nextId++
    received++
    const gone = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) gone.abort()
    })
    const read = await readBody(req, limits.maxBodyBytes, budget)
    if (!read.ok) {
      if (read.why === 'aborted') return void clientAborts++
      clientErrors++
      // The rest of the body is not read: close the connection after the answer.
      return apiError(res, 413, read.message, 'invalid_request_error', { ...cors, connection: 'close' })
    }
    try {
      const checked = checkRequest(read.body, path, limits)
      if (!checked.ok) {
        clientErrors++
        return apiError(res, checked.status, checked.message, 'invalid_request_error', cors)
      }
      const startMs = performance.now()
      const tried = new Set<string>()
      const refusals: { arm: string; status: number; headers: Record<string, string | string[]>; body: Buffer }[] = []
      let retriedFrom: string | undefined
      for (let n = 0; n < 2; n++) {
        const choice = router.choose(tried)
        if (!choice) break
        const rt = runtimes.get(choice.arm)!
        tried.add(choice.arm)
        if (n > 0) retries++
        rt.inFlight++
        const a = await tryArm(rt, {
          req, res, body: checked.body, streamed: checked.streamed, startMs, clientGone: gone.signal, dropHeaders: o.token ? ['authorization'] : [],
          answerHeaders: { ...cors, 'x-kerneltune-arm': rt.spec.id, 'x-kerneltune-request-id': String(requestId) },
          ...(o.onUpstreamChunk ? { onChunk: (c: Buffer) => o.onUpstreamChunk!(requestId, rt.spec.id, c) } : {}),
        }).finally(() => rt.inFlight--)
        switch (a.kind) {
          case 'aborted':
            clientAborts++
            router.clientAborted(choice.arm)
            return
          case 'crashed':
            // Never sent to another arm: the same body could kill it too (issue 34 item 19).
            log(`request ${requestId}: arm ${choice.arm}'s server went away while serving it (${a.why}); not retried on another arm`)
            markDown(rt)
            failed++
            decide(requestId, startMs, choice.arm, choice.reason, { ok: false, e2eMs: performance.now() - startMs }, retriedFrom)
            return apiError(res, 502, `the server of arm ${choice.arm} went away while serving this request; it is not retried on another arm, where it could do the same`, 'server_error', cors)
          case 'refused':
            log(`request ${requestId}: arm ${choice.arm} answered ${a.status}; ${n === 0 ? 'trying another arm' : 'no try left'}`)
            refusals.push({ arm: choice.arm, status: a.status, headers: a.headers, body: a.body })
            continue
          case 'unreached':
          case 'lost':
            // The arm's own doing: it could not be reached, or it broke the connection and lives on.
            log(`request ${requestId}: arm ${choice.arm} failed before answering (${a.why}); ${n === 0 ? 'retrying on another arm' : 'no retry left'}`)
            router.retriedAway(choice.arm)
            if (a.kind === 'unreached' && (rt.server?.launched ? !rt.server.alive() : true)) markDown(rt)
            retriedFrom ??= choice.arm
            continue
          case 'done':
          case 'cut':
            // Another arm served what the earlier ones refused: the refusals were theirs.
            for (const r of refusals) router.retriedAway(r.arm)
            if (a.kind === 'cut') failed++
            decide(requestId, startMs, choice.arm, choice.reason, a.obs, retriedFrom ?? refusals[0]?.arm)
            return
        }
      }
      const last = refusals.at(-1)
      if (last) {
        // Every arm tried refused it: the client's (a lone 5xx with no other arm to ask stays unattributed, in failed).
        if (refusals.length > 1 || last.status < 500) clientErrors++
        else failed++
        res.writeHead(last.status, { ...last.headers, ...cors, 'content-length': String(last.body.length), 'x-kerneltune-arm': last.arm, 'x-kerneltune-request-id': String(requestId) })
        return void res.end(last.body)
      }
      failed++
      apiError(res, 503, tried.size ? `no arm could serve the request (tried ${[...tried].join(', ')})` : 'no arm is up', 'server_unavailable', cors)
    } finally {
      budget.release(read.held)
    }
  }

  const info = (rt: ArmRuntime): ArmInfo => ({
    id: rt.spec.id, combo: rt.spec.combo ?? {}, baseUrl: rt.server?.server.baseUrl ?? null, pid: rt.server?.server.pid ?? null,
    argv: rt.server?.server.argv ?? [], version: rt.server?.server.version ?? null, launched: rt.spec.target.kind !== 'endpoint', up: router.isUp(rt.spec.id), launches: rt.launches, inFlight: rt.inFlight,
  })
  const totals = (): GatewayTotals => ({ requests: received, failed, clientErrors, clientAborts, retries, inFlight, bodyBytesHeld: budget.held, relaunches, staleConnections })
  const policyName = router.bandit.policy.kind
  let url = ''
  const status = (): GatewayStatus => ({
    url, policy: policyName, fallback: o.fallback, objectives: o.objectives, draining,
    totals: totals(),
    arms: router.snapshot().map((a) => ({ ...a, server: info(runtimes.get(a.arm)!) })),
  })

  const listenHost = o.host ?? '127.0.0.1'
  const server = createServer({ ...timeouts }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const origin = req.headers.origin
    // Before anything else, so a page that reached the gateway through DNS rebinding or from another origin learns nothing.
    if (!hostAllowed(req.headers.host, listenHost)) return apiError(res, 403, `the Host header ${JSON.stringify(req.headers.host ?? '')} is not a loopback name; this gateway listens on ${listenHost} and answers requests for localhost, 127.0.0.1 or ::1 only`, 'invalid_request_error')
    if (!originAllowed(origin, allowOrigins)) return apiError(res, 403, `requests from the web origin ${origin} are refused; start the gateway with --allow-origin ${origin} to let its pages call it`, 'invalid_request_error')
    const cors = corsHeaders(origin, allowOrigins)
    if (req.method === 'OPTIONS' && origin !== undefined) {
      res.writeHead(204, preflightHeaders(origin))
      return res.end()
    }
    if (req.method === 'GET' && path === '/health') return json(res, router.arms.some((a) => router.isUp(a)) && !draining ? 200 : 503, { status: draining ? 'draining' : 'ok' }, cors)
    if (!tokenAccepted(req.headers.authorization, o.token)) return apiError(res, 401, 'this gateway needs "Authorization: Bearer TOKEN" (its --token / KERNELTUNE_GATEWAY_TOKEN; OpenAI clients send it as their API key)', 'invalid_request_error', { ...cors, 'www-authenticate': 'Bearer' })
    if (req.method === 'GET' && path === '/metrics') {
      const text = renderMetrics(router.snapshot(), totals(), policyName)
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', ...cors })
      return res.end(text)
    }
    if (req.method === 'GET' && path === '/gateway/status') return json(res, 200, status(), cors)
    if (draining) return apiError(res, 503, 'the gateway is stopping', 'server_unavailable', { ...cors, connection: 'close' })
    if (req.method === 'GET' && path === '/v1/models') {
      const rt = runtimes.get(router.isUp(o.fallback) ? o.fallback : (router.arms.find((a) => router.isUp(a)) ?? o.fallback))!
      if (!rt.server) return apiError(res, 503, 'no arm is up', 'server_unavailable', cors)
      const up = httpRequest(new URL('/v1/models', rt.server.server.baseUrl), { agent }, (ures) => {
        res.writeHead(ures.statusCode ?? 502, { ...forwardHeaders(ures.headers), ...cors })
        ures.pipe(res)
      })
      up.on('error', (e) => apiError(res, 502, e.message, 'server_unavailable', cors))
      return void up.end()
    }
    if (req.method === 'POST' && COMPLETION_PATHS.has(path)) {
      inFlight++
      return void complete(req, res, path, cors).catch((e) => {
        if (!res.headersSent) apiError(res, 500, e instanceof Error ? e.message : String(e), 'internal_error', cors)
        else res.destroy()
      }).finally(() => {
        inFlight--
        if (inFlight === 0) drained?.()
      })
    }
    apiError(res, 404, `no route ${req.method} ${path}; the gateway serves POST /v1/completions, POST /v1/chat/completions, GET /v1/models, /metrics, /health, /gateway/status`, 'invalid_request_error', cors)
  })
  // Also as properties: older Node releases read keepAliveTimeout only from the server object.
  Object.assign(server, { headersTimeout: timeouts.headersTimeout, requestTimeout: timeouts.requestTimeout, keepAliveTimeout: timeouts.keepAliveTimeout })

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
      server.listen(o.port ?? 0, listenHost, () => resolve())
    })
  } catch (e) {
    await stopArms()
    server.close()
    throw e
  }
  const port = (server.address() as AddressInfo).port
  url = `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${port}`
  if (!o.token && !isLoopback(listenHost)) log(`listening on ${listenHost} with no token: anyone who reaches this address can send prompts; set --token / KERNELTUNE_GATEWAY_TOKEN`)

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
