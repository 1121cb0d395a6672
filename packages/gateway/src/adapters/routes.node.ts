/**
 * The gateway's HTTP routes: access first (Host on loopback, web origins, preflight, the bearer
 * token for every route but /health), then /health, /metrics, /gateway/status, /v1/models (the
 * fallback arm's, or the first arm up) and the completion paths, which the completion handler
 * serves. Draining answers 503 to new work.
 */
import { request as httpRequest, type Agent, type IncomingMessage, type ServerResponse } from 'node:http'
import { corsHeaders, hostAllowed, originAllowed, preflightHeaders, tokenAccepted } from '../access.ts'
import { renderMetrics, type GatewayTotals } from '../metrics.ts'
import type { Router } from '../router.ts'
import type { ArmPool } from './arms.node.ts'
import type { CompletionHandler } from './complete.node.ts'
import type { GatewayStatus } from './gateway-types.node.ts'
import { apiError, COMPLETION_PATHS, forwardHeaders, json } from './http.node.ts'

export interface RoutesContext {
  readonly router: Router
  readonly arms: ArmPool
  readonly agent: Agent
  readonly listenHost: string
  readonly allowOrigins: readonly string[]
  readonly token?: string
  readonly fallback: string
  readonly policyName: string
  readonly complete: CompletionHandler
  readonly draining: () => boolean
  readonly totals: () => GatewayTotals
  readonly status: () => GatewayStatus
  /** A completion began (+1) or ended (-1). */
  readonly inFlight: (delta: 1 | -1) => void
}

export function gatewayRoutes(c: RoutesContext): (req: IncomingMessage, res: ServerResponse) => void {
  const { router } = c
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const origin = req.headers.origin
    // Before anything else, so a page that reached the gateway through DNS rebinding or from another origin learns nothing.
    if (!hostAllowed(req.headers.host, c.listenHost)) return apiError(res, 403, `the Host header ${JSON.stringify(req.headers.host ?? '')} is not a loopback name; this gateway listens on ${c.listenHost} and answers requests for localhost, 127.0.0.1 or ::1 only`, 'invalid_request_error')
    if (!originAllowed(origin, c.allowOrigins)) return apiError(res, 403, `requests from the web origin ${origin} are refused; start the gateway with --allow-origin ${origin} to let its pages call it`, 'invalid_request_error')
    const cors = corsHeaders(origin, c.allowOrigins)
    if (req.method === 'OPTIONS' && origin !== undefined) {
      res.writeHead(204, preflightHeaders(origin))
      return res.end()
    }
    const draining = c.draining()
    if (req.method === 'GET' && path === '/health') return json(res, router.arms.some((a) => router.isUp(a)) && !draining ? 200 : 503, { status: draining ? 'draining' : 'ok' }, cors)
    if (!tokenAccepted(req.headers.authorization, c.token)) return apiError(res, 401, 'this gateway needs "Authorization: Bearer TOKEN" (its --token / KERNELTUNE_GATEWAY_TOKEN; OpenAI clients send it as their API key)', 'invalid_request_error', { ...cors, 'www-authenticate': 'Bearer' })
    if (req.method === 'GET' && path === '/metrics') {
      const text = renderMetrics(router.snapshot(), c.totals(), c.policyName)
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', ...cors })
      return res.end(text)
    }
    if (req.method === 'GET' && path === '/gateway/status') return json(res, 200, c.status(), cors)
    if (draining) return apiError(res, 503, 'the gateway is stopping', 'server_unavailable', { ...cors, connection: 'close' })
    if (req.method === 'GET' && path === '/v1/models') {
      const rt = c.arms.runtimes.get(router.isUp(c.fallback) ? c.fallback : (router.arms.find((a) => router.isUp(a)) ?? c.fallback))!
      if (!rt.server) return apiError(res, 503, 'no arm is up', 'server_unavailable', cors)
      const up = httpRequest(new URL('/v1/models', rt.server.server.baseUrl), { agent: c.agent }, (ures) => {
        res.writeHead(ures.statusCode ?? 502, { ...forwardHeaders(ures.headers), ...cors })
        ures.pipe(res)
      })
      up.on('error', (e) => apiError(res, 502, e.message, 'server_unavailable', cors))
      return void up.end()
    }
    if (req.method === 'POST' && COMPLETION_PATHS.has(path)) {
      c.inFlight(1)
      return void c.complete(req, res, path, cors).catch((e) => {
        if (!res.headersSent) apiError(res, 500, e instanceof Error ? e.message : String(e), 'internal_error', cors)
        else res.destroy()
      }).finally(() => c.inFlight(-1))
    }
    apiError(res, 404, `no route ${req.method} ${path}; the gateway serves POST /v1/completions, POST /v1/chat/completions, GET /v1/models, /metrics, /health, /gateway/status`, 'invalid_request_error', cors)
  }
}
