/**
 * The gateway's arms as running servers: launch (or attach to) each arm's server, watch it, mark
 * it down and relaunch it (a launched arm) or poll it (a running endpoint) until it is back, and
 * tell whether a server that broke a connection is still there and whether it was ended from
 * outside. The router only learns up/down from here.
 */
import { get as httpGet } from 'node:http'
import { KerneltuneError } from '@kerneltune/core'
import { openServer, type OpenServer, type ServerTarget } from '@kerneltune/serving/node'
import type { Router } from '../router.ts'
import type { Attempt } from './forward.node.ts'
import type { ArmInfo, GatewayArmSpec } from './gateway-types.node.ts'

/** Signals that come from outside the server's own code: a process ended by one was not crashed by a request. */
const OUTSIDE_SIGNALS: ReadonlySet<string> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'])

export interface ArmRuntime {
  readonly spec: GatewayArmSpec
  server: OpenServer | undefined
  launches: number
  relaunching: boolean
  inFlight: number
}

/** What an arm's try came to, a broken connection settled: `crashed` when its server went away under the request. */
export type Outcome = Attempt | { readonly kind: 'crashed'; readonly why: string }

export interface ArmPoolOptions {
  readonly arms: readonly GatewayArmSpec[]
  readonly router: Router
  readonly readyTimeoutMs?: number
  /** Relaunch a crashed arm's server. Default true. */
  readonly relaunch?: boolean
  readonly log: (line: string) => void
  /** Called after each successful relaunch (the gateway counts them). */
  readonly onRelaunched: () => void
}

export interface ArmPool {
  readonly runtimes: ReadonlyMap<string, ArmRuntime>
  /** Launches (or attaches to) every arm, one after another. */
  openAll(): Promise<void>
  markDown(rt: ArmRuntime): void
  /** Whether the server is still there after a broken connection (a live process answering its health path). */
  survived(s: OpenServer | undefined): Promise<boolean>
  /** A broken connection to an arm that is gone: crashed (not retried) unless it was ended from outside. */
  gone(server: OpenServer | undefined, why: string): Promise<Outcome>
  info(rt: ArmRuntime): ArmInfo
  stopAll(): Promise<void>
}

/**
 * Whether the server answers a GET on a connection of its own, whatever the status. Not through
 * fetch: its pool may hand the probe an idle connection the server has closed meanwhile, and a
 * server that drops stale connections would then look dead (seen once the probes before it changed).
 */
function answersOnFreshConnection(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume()
      res.on('end', () => resolve(true))
      res.on('error', () => resolve(true))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(false))
  })
}

/** The health path of an arm's server: its engine's readiness path where the target names the engine. */
function healthPath(t: ServerTarget): string {
  const serving = t.kind === 'endpoint' ? t.serving : t.engine?.serving
  return serving?.readiness.path ?? '/health'
}

export function createArmPool(o: ArmPoolOptions): ArmPool {
  const { router, log } = o
  const runtimes = new Map<string, ArmRuntime>(o.arms.map((spec) => [spec.id, { spec, server: undefined, launches: 0, relaunching: false, inFlight: 0 }]))
  let stopping = false

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
          const t = rt.spec.target
          if (t.kind === 'endpoint') {
            const res = await fetch(`${t.url.replace(/\/$/, '')}${healthPath(t)}`, { signal: AbortSignal.timeout(2000) })
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
            o.onRelaunched()
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
   * A launched process that has not exited and answers its health path with any status. A server
   * killed by the request has closed its listening socket with the connection, so the check
   * answers at once either way.
   */
  const survived = async (s: OpenServer | undefined): Promise<boolean> => {
    if (!s || !s.alive()) return false
    const answered = await answersOnFreshConnection(new URL(s.serving?.readiness.path ?? '/health', s.server.baseUrl))
    return answered && s.alive()
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

  return {
    runtimes,
    async openAll() {
      // One after another: on a small machine, parallel model loads slow each other past their ready timeouts.
      for (const rt of runtimes.values()) {
        await open(rt)
        log(`arm ${rt.spec.id}: ${rt.server!.server.launched ? `launched (pid ${rt.server!.server.pid}) at` : 'using'} ${rt.server!.server.baseUrl}`)
      }
    },
    markDown(rt) {
      if (!router.isUp(rt.spec.id)) return
      router.setUp(rt.spec.id, false)
      if (o.relaunch !== false || rt.spec.target.kind === 'endpoint') void relaunch(rt)
    },
    survived,
    async gone(server, why) {
      const signal = await endedFromOutside(server)
      return signal ? { kind: 'unreached', why: `${why} (the arm's server was ended from outside by ${signal})` } : { kind: 'crashed', why }
    },
    info: (rt) => ({
      id: rt.spec.id, combo: rt.spec.combo ?? {}, baseUrl: rt.server?.server.baseUrl ?? null, pid: rt.server?.server.pid ?? null,
      argv: rt.server?.server.argv ?? [], version: rt.server?.server.version ?? null, launched: rt.spec.target.kind !== 'endpoint', up: router.isUp(rt.spec.id), launches: rt.launches, inFlight: rt.inFlight,
    }),
    async stopAll() {
      stopping = true
      await Promise.all([...runtimes.values()].map(async (rt) => {
        const s = rt.server
        rt.server = undefined
        await s?.stop()
      }))
    },
  }
}
