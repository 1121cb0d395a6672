/**
 * What every answer carries and every unexpected failure leaves behind (issue 23 items 14 and 19):
 * a request id (X-Request-Id, also in 500 bodies and the log line), browser hardening headers,
 * and the optional bearer token in front of /metrics.
 */
import { isLoopback, KerneltuneError, sameSecret } from '@kerneltune/core'

/** Re-exported: the gateway shares the rule (core net.ts). */
export { isLoopback }
import type { Context, MiddlewareHandler } from 'hono'

declare module 'hono' {
  interface ContextVariableMap {
    /** Random per request; links a client's 500 to the server's log line. */
    requestId: string
    /** Where unexpected errors are reported (AppOptions.log). */
    log: (line: string) => void
  }
}

/**
 * The dashboard is a Vite build: scripts and styles are files under /assets, so script-src needs
 * no 'unsafe-inline'. style-src keeps 'unsafe-inline' because Observable Plot (the run charts)
 * writes <style> elements and style attributes into the SVG it renders; styles cannot run code.
 * The API answers JSON only and may load nothing at all.
 */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"

const isDashboardPath = (path: string) => path === '/' || path.startsWith('/assets/')

export function requestContext(log: (line: string) => void): MiddlewareHandler {
  return async function requestContext(c, next) {
    // Generated, never taken from the client: a client-chosen id could forge log lines.
    const id = globalThis.crypto.randomUUID()
    c.set('requestId', id)
    c.set('log', log)
    await next()
    c.header('x-request-id', id)
    c.header('x-content-type-options', 'nosniff')
    c.header('x-frame-options', 'DENY')
    c.header('referrer-policy', 'no-referrer')
    c.header('content-security-policy', isDashboardPath(c.req.path) ? DASHBOARD_CSP : API_CSP)
  }
}

// Strips what could be a credential from an error message before it is logged: URL userinfo
// (postgres://user:PASS@host) and bearer tokens.
const redact = (s: string) => s.replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, '//***:***@').replace(/(bearer\s+)\S+/gi, '$1***').replace(/\bkt_[0-9a-f]{16,}\b/g, 'kt_***')

/** Logs an error the server did not expect (a 500), by request id, method and route; no headers, no body. */
export function reportUnexpected(c: Context, err: unknown): string {
  const id = c.get('requestId') ?? globalThis.crypto.randomUUID()
  const log = c.get('log') ?? ((l: string) => console.error(l))
  const what = err instanceof Error ? `${err.name}: ${err.message}${err.stack ? `\n${err.stack.split('\n').slice(1, 8).join('\n')}` : ''}` : String(err)
  log(`kerneltune: 500 on ${c.req.method} ${c.req.routePath || c.req.path} (request ${id}): ${redact(what)}`)
  return id
}

/** Throws UNAUTHORIZED unless the request carries `Authorization: Bearer <token>`; no token configured lets every request in. */
export function checkMetricsToken(c: Context, token: string | undefined): void {
  if (!token) return
  const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')
  if (!m || !sameSecret(m[1]!, token)) throw new KerneltuneError('UNAUTHORIZED', '/metrics needs "Authorization: Bearer METRICS_TOKEN" (the server\'s --metrics-token / KERNELTUNE_METRICS_TOKEN; in Prometheus: authorization: { credentials: ... })')
}

/**
 * /metrics counts every tenant's runs and registry entries: fine on loopback, a leak elsewhere.
 * Listening elsewhere without a metrics token is refused unless the operator says it is meant.
 */
export function checkMetricsExposure(hostname: string, token: string | undefined, allowPublic: boolean): void {
  if (token !== undefined && token.length > 0 && token.length < 16) throw new KerneltuneError('INVALID_INPUT', `the metrics token must be at least 16 characters (it has ${token.length}); e.g. KERNELTUNE_METRICS_TOKEN=$(openssl rand -hex 32)`)
  if (token || allowPublic || isLoopback(hostname)) return
  throw new KerneltuneError('INVALID_INPUT', `refusing to listen on ${hostname} with /metrics open: it counts every tenant's runs and registry entries. Set a token with --metrics-token or KERNELTUNE_METRICS_TOKEN (Prometheus then sends it as a bearer token), or pass --metrics-public (KERNELTUNE_METRICS_PUBLIC=true) if this network may read it`)
}

/**
 * Tenants stored before names were normalised (issue 23 item 18) are kept as they are: their
 * tokens still work, and merging `ACME` into `acme` could hand one tenant's runs to another. The
 * API no longer accepts such a name, so these lines tell the operator which ones exist and which
 * would now collide; the fix is to mint tokens for the normalised name and revoke the old ones.
 */
export function legacyTenantNotes(tenants: readonly string[], normalise: (t: string) => string): string[] {
  const byForm = new Map<string, string[]>()
  for (const t of [...new Set(tenants)].sort()) byForm.set(normalise(t), [...(byForm.get(normalise(t)) ?? []), t])
  const notes: string[] = []
  for (const [form, names] of byForm) {
    const odd = names.filter((n) => n !== form || /^\.*$/.test(n))
    if (odd.length === 0) continue
    const list = names.map((n) => JSON.stringify(n)).join(', ')
    notes.push(names.length > 1
      ? `kerneltune: tenants ${list} are one name once normalised (${JSON.stringify(form)}) but are stored apart and stay apart; new tokens can only name ${JSON.stringify(form)}`
      : `kerneltune: tenant ${list} is stored in a form the API no longer accepts (it is ${/^\.*$/.test(form) ? 'refused' : JSON.stringify(form)} now); its tokens keep working, and requests that omit "tenant" act on it`)
  }
  return notes
}
