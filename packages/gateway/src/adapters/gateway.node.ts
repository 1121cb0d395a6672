/**
 * The gateway: an OpenAI-compatible HTTP endpoint in front of one server per arm. An arm is any
 * engine whose plugin has a serving capability (launched from its translation of the arm's
 * combination) or a running endpoint. This file checks the options and puts the parts together:
 * the arms' servers (./arms.node.ts), the completion path (./complete.node.ts), the routes
 * (./routes.node.ts), listening and draining.
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
import { createServer, Agent } from 'node:http'
import type { AddressInfo } from 'node:net'
import { KerneltuneError } from '@kerneltune/core'
import type { PolicyInput } from '@kerneltune/bandit'
import type { LatencyObjective } from '@kerneltune/serving'
import { checkToken, isLoopback, parseOrigin, serverTimeouts, type Timeouts } from '../access.ts'
import type { GatewayTotals } from '../metrics.ts'
import { BodyBudget, DEFAULT_LIMITS, type RequestLimits } from '../request.ts'
import { Router, type GuardOptions } from '../router.ts'
import { createArmPool } from './arms.node.ts'
import type { ArmInfo, Decision, GatewayArmSpec, GatewayStatus } from './gateway-types.node.ts'
import { completionHandler, type Counters } from './complete.node.ts'
import { gatewayRoutes } from './routes.node.ts'

export type { ArmInfo, Decision, GatewayArmSpec, GatewayStatus } from './gateway-types.node.ts'

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

export interface Gateway {
  readonly url: string
  readonly port: number
  status(): GatewayStatus
  /** The live state of an arm's server (for tests and benchmarks: its pid, its URL). */
  arm(id: string): ArmInfo
  /** Drains, stops every launched server; resolves with the final status. */
  stop(): Promise<GatewayStatus>
}

/** The request limits of the options, checked: every one a positive integer, the total at least one body. */
function limitsOf(o: GatewayOptions): { limits: RequestLimits; totalBytes: number } {
  const limits: RequestLimits = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(o.limits ?? {}).filter(([k, v]) => k !== 'maxTotalBodyBytes' && v !== undefined)) }
  const totalBytes = o.limits?.maxTotalBodyBytes ?? DEFAULT_MAX_TOTAL_BODY_BYTES
  for (const [name, v] of [['maxBodyBytes', limits.maxBodyBytes], ['maxDepth', limits.maxDepth], ['maxTokens', limits.maxTokens], ['maxTotalBodyBytes', totalBytes]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new KerneltuneError('INVALID_INPUT', `limits.${name} must be a positive integer, got ${v}`)
  }
  if (totalBytes < limits.maxBodyBytes) throw new KerneltuneError('INVALID_INPUT', `the total of request bodies held (${totalBytes} bytes) must be at least one body's limit (${limits.maxBodyBytes} bytes)`)
  return { limits, totalBytes }
}

function checkArms(o: GatewayOptions): void {
  if (o.arms.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the gateway needs at least one arm')
  if (new Set(o.arms.map((a) => a.id)).size !== o.arms.length) throw new KerneltuneError('INVALID_INPUT', `arm ids must be unique: ${o.arms.map((a) => a.id).join(', ')}`)
  if (o.objectives.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the gateway needs at least one latency objective to judge requests by (e.g. ttft_p99_ms=500)')
}

export async function startGateway(o: GatewayOptions): Promise<Gateway> {
  checkArms(o)
  checkToken(o.token)
  const allowOrigins = (o.allowOrigins ?? []).map(parseOrigin)
  const timeouts = serverTimeouts(o.timeouts ?? {})
  const { limits, totalBytes } = limitsOf(o)
  const budget = new BodyBudget(totalBytes)
  const router = new Router({ arms: o.arms.map((a) => a.id), fallback: o.fallback, ...(o.policy ? { policy: o.policy } : {}), ...(o.seed === undefined ? {} : { seed: o.seed }), ...(o.guard ? { guard: o.guard } : {}) })
  const log = o.log ?? (() => {})
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const counters: Counters = { received: 0, failed: 0, clientErrors: 0, clientAborts: 0, retries: 0, relaunches: 0, staleConnections: 0, inFlight: 0 }
  const arms = createArmPool({ arms: o.arms, router, log, onRelaunched: () => void counters.relaunches++, ...(o.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: o.readyTimeoutMs }), ...(o.relaunch === undefined ? {} : { relaunch: o.relaunch }) })
  const complete = completionHandler({
    router, arms, limits, budget, agent, counters, objectives: o.objectives, t0: performance.now(), log,
    ...(o.token ? { token: o.token } : {}), ...(o.onDecision ? { onDecision: o.onDecision } : {}), ...(o.onUpstreamChunk ? { onUpstreamChunk: o.onUpstreamChunk } : {}),
  })
  let draining = false
  let drained: (() => void) | undefined
  const totals = (): GatewayTotals => {
    const { received, ...rest } = counters
    return { requests: received, ...rest, bodyBytesHeld: budget.held }
  }
  const policyName = router.bandit.policy.kind
  let url = ''
  const status = (): GatewayStatus => ({
    url, policy: policyName, fallback: o.fallback, objectives: o.objectives, draining,
    totals: totals(),
    arms: router.snapshot().map((a) => ({ ...a, server: arms.info(arms.runtimes.get(a.arm)!) })),
  })

  const listenHost = o.host ?? '127.0.0.1'
  const server = createServer({ ...timeouts }, gatewayRoutes({
    router, arms, agent, listenHost, allowOrigins, fallback: o.fallback, policyName, complete, totals, status,
    ...(o.token ? { token: o.token } : {}),
    draining: () => draining,
    inFlight: (delta) => {
      counters.inFlight += delta
      if (counters.inFlight === 0) drained?.()
    },
  }))
  // Also as properties: older Node releases read keepAliveTimeout only from the server object.
  Object.assign(server, { headersTimeout: timeouts.headersTimeout, requestTimeout: timeouts.requestTimeout, keepAliveTimeout: timeouts.keepAliveTimeout })

  const stopArms = async () => {
    await arms.stopAll()
    agent.destroy()
  }

  try {
    await arms.openAll()
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
      const rt = arms.runtimes.get(id)
      if (!rt) throw new KerneltuneError('INVALID_INPUT', `unknown arm ${id}`)
      return arms.info(rt)
    },
    stop: () => (stopped ??= (async () => {
      draining = true
      server.close()
      server.closeIdleConnections()
      if (counters.inFlight > 0) {
        const timeout = new Promise<void>((r) => setTimeout(r, o.drainTimeoutMs ?? 30_000).unref())
        await Promise.race([new Promise<void>((r) => (drained = r)), timeout])
        if (counters.inFlight > 0) log(`${counters.inFlight} request(s) still in flight after the drain timeout; cutting them`)
      }
      server.closeAllConnections()
      const final = status()
      await stopArms()
      return { ...final, arms: final.arms.map((a) => ({ ...a, up: false, server: { ...a.server, up: false } })) }
    })()),
  }
}
