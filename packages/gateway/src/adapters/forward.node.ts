/**
 * One try of one request on one arm, and what became of it. The outcome says whose it was
 * (issue 34 item 20), so the gateway charges an arm only for what is the arm's:
 *
 * - `done`: the arm answered 2xx/3xx and the answer went to the client (judged by its latency).
 * - `refused`: the arm answered ≥ 400 before any byte went out; nothing was written, the answer is
 *   held (up to 64 KiB) so that it can be passed on if no other arm serves the request. Whether
 *   it is the arm's fault or the client's is decided by what the other arms say.
 * - `unreached`: no connection (refused, no server): the request never reached the arm.
 * - `lost`: the connection was reset or closed before an answer. The request may have reached the
 *   arm and killed it; the gateway finds out before any retry.
 * - `cut`: the answer stopped after its first byte (counted as the arm's failure).
 * - `aborted`: the client went away; nobody's failure.
 */
import { request as httpRequest, type Agent, type IncomingMessage, type ServerResponse } from 'node:http'
import { observeResponse } from '../observe.ts'
import type { Observation } from '../reward.ts'
import { forwardHeaders } from './http.node.ts'

export type Attempt =
  | { readonly kind: 'done'; readonly obs: Observation }
  | { readonly kind: 'refused'; readonly status: number; readonly headers: Record<string, string | string[]>; readonly body: Buffer }
  | { readonly kind: 'unreached'; readonly why: string }
  | { readonly kind: 'lost'; readonly why: string; readonly reusedSocket: boolean }
  | { readonly kind: 'cut'; readonly obs: Observation; readonly why: string }
  | { readonly kind: 'aborted'; readonly wrote: boolean }

export interface AttemptInput {
  readonly baseUrl: string | undefined
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly body: Uint8Array
  readonly streamed: boolean
  readonly startMs: number
  /** Aborted when the client goes away. */
  readonly clientGone: AbortSignal
  /** Pooled connections; false opens a fresh one. */
  readonly agent: Agent | false
  /** Request headers not to pass on (the gateway's own token). */
  readonly dropHeaders: readonly string[]
  /** Headers of the gateway's own added to the answer (arm, request id, CORS). */
  readonly answerHeaders: Record<string, string>
  readonly onChunk?: (chunk: Buffer) => void
}

const HELD_ERROR_BYTES = 64 << 10
const NOT_REACHED = /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|ENOTFOUND/

export function attempt(a: AttemptInput): Promise<Attempt> {
  return new Promise((resolve) => {
    if (!a.baseUrl) return resolve({ kind: 'unreached', why: 'the arm has no server' })
    if (a.clientGone.aborted) return resolve({ kind: 'aborted', wrote: false })
    const url = new URL(a.req.url ?? '/', a.baseUrl)
    const observer = observeResponse({ startMs: a.startMs, streamed: a.streamed })
    let wrote = false
    let settled = false
    const settle = (r: Attempt) => {
      if (settled) return
      settled = true
      a.clientGone.removeEventListener('abort', onGone)
      resolve(r)
    }
    const onGone = () => {
      up.destroy()
      settle({ kind: 'aborted', wrote })
    }
    const up = httpRequest(url, { method: a.req.method, headers: { ...forwardHeaders(a.req.headers, a.dropHeaders), host: url.host, 'content-length': String(a.body.byteLength) }, agent: a.agent }, (ures) => {
      const status = ures.statusCode ?? 502
      if (status >= 400) {
        // Held, not passed on yet: another arm may serve the request.
        const parts: Buffer[] = []
        let n = 0
        ures.on('data', (c: Buffer) => {
          if (n < HELD_ERROR_BYTES) parts.push(c.subarray(0, HELD_ERROR_BYTES - n))
          n += c.length
        })
        ures.on('end', () => settle({ kind: 'refused', status, headers: forwardHeaders(ures.headers), body: Buffer.concat(parts) }))
        ures.on('error', (e) => settle({ kind: 'lost', why: e.message, reusedSocket: false }))
        ures.on('close', () => settle({ kind: 'lost', why: 'the arm closed the connection during its error answer', reusedSocket: false }))
        return
      }
      const head = () => {
        if (wrote) return
        wrote = true
        a.res.writeHead(status, { ...forwardHeaders(ures.headers), ...a.answerHeaders })
      }
      ures.on('data', (c: Buffer) => {
        const at = performance.now()
        head()
        a.onChunk?.(c)
        observer.chunk(c, at)
        a.res.write(c)
      })
      ures.on('end', () => {
        head()
        a.res.end()
        settle({ kind: 'done', obs: observer.end(performance.now(), ures.complete && status < 300) })
      })
      const broken = (why: string, e?: Error) => {
        if (settled) return
        if (!wrote) return settle({ kind: 'lost', why, reusedSocket: false })
        a.res.destroy(e)
        settle({ kind: 'cut', obs: observer.end(performance.now(), false), why })
      }
      ures.on('error', (e) => broken(e.message, e))
      ures.on('close', () => broken(wrote ? 'the arm closed the connection mid-answer' : 'the arm closed the connection before answering'))
    })
    up.on('error', (e) => {
      if (settled) return
      const why = `${e.message} ${String((e as { code?: string }).code ?? '')}`.trim()
      if (!wrote && NOT_REACHED.test(why)) return settle({ kind: 'unreached', why })
      if (!wrote) return settle({ kind: 'lost', why, reusedSocket: up.reusedSocket })
      a.res.destroy(e)
      settle({ kind: 'cut', obs: observer.end(performance.now(), false), why: e.message })
    })
    a.clientGone.addEventListener('abort', onGone)
    up.end(a.body)
  })
}
