/** HTTP helpers of the gateway: header forwarding, request bodies within their budgets, JSON and OpenAI-style error answers. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { BodyBudget } from '../request.ts'

export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host'])
export const COMPLETION_PATHS = new Set(['/v1/completions', '/v1/chat/completions'])

/**
 * Headers passed on, less hop-by-hop ones and `drop`. An arm's CORS headers never reach the
 * client (a server may allow every origin; the gateway decides its own), nor does the gateway's
 * token reach an arm.
 */
export function forwardHeaders(h: IncomingHttpHeaders, drop: readonly string[] = []): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k) && !k.startsWith('access-control-') && !drop.includes(k)) out[k] = v
  return out
}

export type BodyRead = { readonly ok: true; readonly body: Buffer; readonly held: number } | { readonly ok: false; readonly why: 'too-large' | 'over-total' | 'aborted'; readonly message: string }

/**
 * Reads a request body of at most `limit` bytes within the shared `budget`. A declared
 * Content-Length is checked and taken from the budget before anything is read, so a body that
 * cannot fit is refused at its headers; a chunked body takes each chunk as it arrives. On refusal
 * everything taken is given back; on success the caller owns `held` bytes of the budget and must
 * release them when the request ends.
 */
export function readBody(req: IncomingMessage, limit: number, budget: BodyBudget): Promise<BodyRead> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let n = 0
    let held = 0
    let done = false
    const finish = (r: BodyRead) => {
      if (done) return
      done = true
      req.off('data', onData)
      if (!r.ok) budget.release(held)
      resolve(r)
    }
    const overTotal = (): BodyRead => ({ ok: false, why: 'over-total', message: `the gateway holds ${budget.totalBytes} bytes of request bodies at most (kerneltune gateway --max-total-body-mb) and has no room for this one now; retry later` })
    const onData = (c: Buffer) => {
      if (n + c.length > limit) return finish({ ok: false, why: 'too-large', message: `the request body is over this gateway's limit of ${limit} bytes (kerneltune gateway --max-body-mb)` })
      if (n + c.length > held) {
        if (!budget.take(n + c.length - held)) return finish(overTotal())
        held = n + c.length
      }
      n += c.length
      parts.push(c)
    }
    const declared = Number(req.headers['content-length'])
    if (Number.isSafeInteger(declared) && declared >= 0) {
      if (declared > limit) return finish({ ok: false, why: 'too-large', message: `the request body is ${declared} bytes, over this gateway's limit of ${limit} (kerneltune gateway --max-body-mb)` })
      if (!budget.take(declared)) return finish(overTotal())
      held = declared
    }
    req.on('data', onData)
    req.on('end', () => finish({ ok: true, body: Buffer.concat(parts, n), held }))
    req.on('error', (e) => finish({ ok: false, why: 'aborted', message: e.message }))
    req.on('close', () => finish({ ok: false, why: 'aborted', message: 'the client closed the connection while sending the body' }))
  })
}

export const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-content-type-options': 'nosniff', ...extra })
  res.end(text)
}

/** An OpenAI-style error body, so clients of the gateway parse it as they would the server's. */
export const apiError = (res: ServerResponse, status: number, message: string, type: string, extra: Record<string, string> = {}) =>
  json(res, status, { error: { message, type, code: status } }, extra)
