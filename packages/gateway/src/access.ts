/**
 * Who may use the gateway (issue 34 item 22). It passed an arm's
 * `access-control-allow-origin: *` through, needed no token and accepted any Host, so any web
 * page open in the user's browser could send prompts and read the answers. Now:
 *
 * - no CORS unless the operator names the origins (`--allow-origin`); a request that carries an
 *   Origin header not named is refused (a browser always sends one on a cross-origin request,
 *   even a "simple" one whose answer it would not show: the prompt would still run);
 * - on a loopback address, the Host header must name a loopback host too (a page on evil.example
 *   whose DNS turns to 127.0.0.1 sends Host: evil.example: DNS rebinding);
 * - an optional bearer token (`--token` / KERNELTUNE_GATEWAY_TOKEN), at least 16 characters as
 *   the server's metrics token, compared in constant time; OpenAI clients send it as their API key.
 *
 * The loopback rule, the secret comparison and the connection timeouts are the server's, from
 * @kerneltune/core (net.ts).
 */
import { isLoopback, KerneltuneError, sameSecret } from '@kerneltune/core'

export { DEFAULT_TIMEOUTS, isLoopback, sameSecret, serverTimeouts, type Timeouts } from '@kerneltune/core'

/** The host name of a Host header value (`[::1]:8000` → `::1`, `a.b:80` → `a.b`); undefined when malformed. */
export function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/.exec(header.trim())
  return m ? m[1]!.replace(/^\[|\]$/g, '') : undefined
}

/** On a loopback address only loopback names may be asked for; elsewhere any Host is the network's business. */
export function hostAllowed(header: string | undefined, listenHost: string): boolean {
  if (!isLoopback(listenHost)) return true
  const h = hostOf(header)
  return h !== undefined && isLoopback(h)
}

/** True when no token is configured or the Authorization header carries it as a bearer token. */
export function tokenAccepted(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  return m !== null && sameSecret(m[1]!, token)
}

/** Refuses a token too short to be a secret, with the way to make one. */
export function checkToken(token: string | undefined): void {
  if (token !== undefined && token.length > 0 && token.length < 16) throw new KerneltuneError('INVALID_INPUT', `the gateway token must be at least 16 characters (it has ${token.length}); e.g. KERNELTUNE_GATEWAY_TOKEN=$(openssl rand -hex 32)`)
}

/** Normalises an allowed origin (`https://app.example`, no path); `*` is refused: that is what the gateway must not say. */
export function parseOrigin(text: string): string {
  let u: URL
  try {
    u = new URL(text)
  } catch {
    throw new KerneltuneError('INVALID_INPUT', `--allow-origin ${JSON.stringify(text)} is not an origin; give scheme://host[:port], e.g. http://localhost:5173`)
  }
  if (!/^https?:$/.test(u.protocol) || u.origin !== text.replace(/\/$/, '')) throw new KerneltuneError('INVALID_INPUT', `--allow-origin ${JSON.stringify(text)} is not an origin; give scheme://host[:port] with no path, e.g. http://localhost:5173`)
  return u.origin
}

/** Whether a request with this Origin header (or none) may go on. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  return origin === undefined || allowed.includes(origin)
}

/** CORS headers for an allowed origin (none without an Origin header or when none is allowed). */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (origin === undefined || !allowed.includes(origin)) return {}
  return { 'access-control-allow-origin': origin, vary: 'Origin' }
}

/** The answer to a CORS preflight from an allowed origin. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin, vary: 'Origin', 'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': 'authorization, content-type', 'access-control-max-age': '600',
  }
}
