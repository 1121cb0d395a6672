/**
 * What the HTTP front doors (the server and the gateway) share about who may connect and for how
 * long: one loopback rule, one constant-time secret comparison and one set of connection
 * timeouts, so the gateway cannot drift from the server it sits beside (issue 34 item 21: "the
 * same header, body and idle timeouts as the server"). Plain functions, no `node:` imports.
 */
import { KerneltuneError } from './errors.ts'

/** 127.0.0.0/8, ::1 and localhost: names only this machine reaches. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h)
}

/** Constant-time comparison, so timing does not reveal a prefix of the secret. */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a)
  const y = new TextEncoder().encode(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

/** Header 10 s, whole request (body included) 60 s, idle keep-alive 5 s. Answers (SSE streams) are not bounded by them. */
export const DEFAULT_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 } as const

export interface Timeouts {
  readonly headersTimeoutMs?: number | undefined
  readonly requestTimeoutMs?: number | undefined
  readonly keepAliveTimeoutMs?: number | undefined
}

/** Node's http.Server options for the timeouts, refusing combinations Node would reject with a less clear message. */
export function serverTimeouts(o: Timeouts): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersTimeoutMs
  const requestTimeout = o.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestTimeoutMs
  const keepAliveTimeout = o.keepAliveTimeoutMs ?? DEFAULT_TIMEOUTS.keepAliveTimeoutMs
  for (const [name, v] of [['headers timeout', headersTimeout], ['request timeout', requestTimeout], ['keep-alive timeout', keepAliveTimeout]] as const) {
    if (!Number.isInteger(v) || v < 100 || v > 3_600_000) throw new KerneltuneError('INVALID_INPUT', `the ${name} must be 100 ms to 1 hour (it is ${v} ms)`)
  }
  if (headersTimeout > requestTimeout) throw new KerneltuneError('INVALID_INPUT', `the headers timeout (${headersTimeout} ms) must not exceed the request timeout (${requestTimeout} ms): the request includes its headers`)
  // Node enforces the headers and request timeouts on a sweep over open connections every
  // connectionsCheckingInterval ms (default 30 s), so a slow client could outlast a timeout by up to
  // that much; sweeping at a quarter of the headers timeout (at most 1 s) keeps the bound tight.
  return { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeout / 4))) }
}
