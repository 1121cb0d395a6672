/**
 * One completion request through the gateway: read and check the body, let the router pick an
 * arm, forward, and settle whose failure it was (issue 34 items 19–20): a refusal is charged to
 * an arm only when another arm then serves the request; a broken connection is checked at once
 * and a request that may have killed its arm is never sent to another; a client that goes away is
 * counted apart. Each served request is judged against the objectives and recorded.
 */
import type { Agent, IncomingMessage, ServerResponse } from 'node:http'
import type { LatencyObjective } from '@kerneltune/serving'
import { checkRequest, type BodyBudget, type RequestLimits } from '../request.ts'
import { judge, type Observation } from '../reward.ts'
import type { Reason, Router } from '../router.ts'
import type { ArmPool, ArmRuntime, Outcome } from './arms.node.ts'
import { attempt } from './forward.node.ts'
import type { Decision } from './gateway-types.node.ts'
import { apiError, readBody } from './http.node.ts'

/** The gateway's running counts (GatewayTotals without what is read elsewhere). */
export interface Counters {
  received: number
  failed: number
  clientErrors: number
  clientAborts: number
  retries: number
  relaunches: number
  staleConnections: number
  inFlight: number
}

export interface CompletionContext {
  readonly router: Router
  readonly arms: ArmPool
  readonly limits: RequestLimits
  readonly budget: BodyBudget
  readonly agent: Agent
  readonly counters: Counters
  readonly objectives: readonly LatencyObjective[]
  /** performance.now() when the gateway started (decisions are timed from it). */
  readonly t0: number
  readonly token?: string
  readonly log: (line: string) => void
  readonly onDecision?: (d: Decision) => void
  readonly onUpstreamChunk?: (requestId: number, arm: string, chunk: Buffer) => void
}

export type CompletionHandler = (req: IncomingMessage, res: ServerResponse, path: string, cors: Record<string, string>) => Promise<void>

export function completionHandler(c: CompletionContext): CompletionHandler {
  const { router, arms, counters, log } = c
  let nextId = 1

  /**
   * One arm's try, with a broken connection settled: a pooled keep-alive connection the arm had
   * closed while idle (servers close idle ones after a few seconds) is sent again on a fresh one,
   * counting against nobody, but only once the arm is known to be alive: the same reset is what a
   * request that kills the arm looks like.
   */
  const tryArm = async (rt: ArmRuntime, base: Omit<Parameters<typeof attempt>[0], 'baseUrl' | 'agent'>): Promise<Outcome> => {
    // A server already known dead when the request left could not have been killed by it.
    // The server the request went to: a relaunch may replace rt.server while the request is out.
    const server = rt.server
    const wasAlive = server?.alive() ?? false
    let a = await attempt({ ...base, baseUrl: rt.server?.server.baseUrl, agent: c.agent })
    if (a.kind === 'lost' && !wasAlive) return { kind: 'unreached', why: a.why }
    if (a.kind === 'lost' && a.reusedSocket && !base.clientGone.aborted) {
      if (!(await arms.survived(server))) return arms.gone(server, a.why)
      counters.staleConnections++
      a = await attempt({ ...base, baseUrl: rt.server?.server.baseUrl, agent: false })
    }
    if (a.kind === 'lost' && !base.clientGone.aborted && !(await arms.survived(server))) return arms.gone(server, a.why)
    return a
  }

  const decide = (requestId: number, startMs: number, arm: string, reason: Reason, obs: Observation, retriedFrom: string | undefined) => {
    const j = judge(obs, c.objectives)
    router.record(arm, obs, j)
    c.onDecision?.({
      requestId, atMs: startMs - c.t0, arm, reason: retriedFrom ? 'retry' : reason, ok: obs.ok, met: j.met, reward: j.reward,
      ...(obs.ttftMs === undefined ? {} : { ttftMs: obs.ttftMs }), ...(obs.tpotMs === undefined ? {} : { tpotMs: obs.tpotMs }),
      e2eMs: obs.e2eMs, ...(obs.outputTokens === undefined ? {} : { outputTokens: obs.outputTokens }), ...(retriedFrom ? { retriedFrom } : {}),
    })
  }

  return async (req, res, path, cors) => {
    const requestId = nextId++
    counters.received++
    const gone = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) gone.abort()
    })
    const read = await readBody(req, c.limits.maxBodyBytes, c.budget)
    if (!read.ok) {
      if (read.why === 'aborted') return void counters.clientAborts++
      counters.clientErrors++
      // The rest of the body is not read: close the connection after the answer.
      return apiError(res, 413, read.message, 'invalid_request_error', { ...cors, connection: 'close' })
    }
    try {
      const checked = checkRequest(read.body, path, c.limits)
      if (!checked.ok) {
        counters.clientErrors++
        return apiError(res, checked.status, checked.message, 'invalid_request_error', cors)
      }
      const startMs = performance.now()
      const tried = new Set<string>()
      const refusals: { arm: string; status: number; headers: Record<string, string | string[]>; body: Buffer }[] = []
      let retriedFrom: string | undefined
      for (let n = 0; n < 2; n++) {
        const choice = router.choose(tried)
        if (!choice) break
        const rt = arms.runtimes.get(choice.arm)!
        tried.add(choice.arm)
        if (n > 0) counters.retries++
        rt.inFlight++
        const a = await tryArm(rt, {
          req, res, body: checked.body, streamed: checked.streamed, startMs, clientGone: gone.signal, dropHeaders: c.token ? ['authorization'] : [],
          answerHeaders: { ...cors, 'x-kerneltune-arm': rt.spec.id, 'x-kerneltune-request-id': String(requestId) },
          ...(c.onUpstreamChunk ? { onChunk: (chunk: Buffer) => c.onUpstreamChunk!(requestId, rt.spec.id, chunk) } : {}),
        }).finally(() => rt.inFlight--)
        switch (a.kind) {
          case 'aborted':
            counters.clientAborts++
            router.clientAborted(choice.arm)
            return
          case 'crashed':
            // Never sent to another arm: the same body could kill it too (issue 34 item 19).
            log(`request ${requestId}: arm ${choice.arm}'s server went away while serving it (${a.why}); not retried on another arm`)
            arms.markDown(rt)
            counters.failed++
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
            if (a.kind === 'unreached' && (rt.server?.launched ? !rt.server.alive() : true)) arms.markDown(rt)
            retriedFrom ??= choice.arm
            continue
          case 'done':
          case 'cut':
            // Another arm served what the earlier ones refused: the refusals were theirs.
            for (const r of refusals) router.retriedAway(r.arm)
            if (a.kind === 'cut') counters.failed++
            decide(requestId, startMs, choice.arm, choice.reason, a.obs, retriedFrom ?? refusals[0]?.arm)
            return
        }
      }
      const last = refusals.at(-1)
      if (last) {
        // Every arm tried refused it: the client's (a lone 5xx with no other arm to ask stays unattributed, in failed).
        if (refusals.length > 1 || last.status < 500) counters.clientErrors++
        else counters.failed++
        res.writeHead(last.status, { ...last.headers, ...cors, 'content-length': String(last.body.length), 'x-kerneltune-arm': last.arm, 'x-kerneltune-request-id': String(requestId) })
        return void res.end(last.body)
      }
      counters.failed++
      apiError(res, 503, tried.size ? `no arm could serve the request (tried ${[...tried].join(', ')})` : 'no arm is up', 'server_unavailable', cors)
    } finally {
      c.budget.release(read.held)
    }
  }
}
