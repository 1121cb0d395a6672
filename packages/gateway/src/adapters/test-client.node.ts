/** Test helper: one raw HTTP request to the gateway, keeping the exact bytes of the answer. */
import { request } from 'node:http'

export interface RawAnswer {
  readonly status: number
  readonly arm: string | undefined
  readonly requestId: number | undefined
  readonly body: Buffer
  /** True when the answer ended normally (not cut). */
  readonly complete: boolean
}

export function post(url: string, path: string, body: unknown): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const req = request(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      const done = () => resolve({
        status: res.statusCode ?? 0,
        arm: res.headers['x-kerneltune-arm'] as string | undefined,
        requestId: res.headers['x-kerneltune-request-id'] === undefined ? undefined : Number(res.headers['x-kerneltune-request-id']),
        body: Buffer.concat(parts),
        complete: res.complete,
      })
      res.on('end', done)
      res.on('error', done)
    })
    req.on('error', reject)
    req.end(text)
  })
}

/** A completion request like the load generator's: streamed, exactly n tokens. */
export const completion = (prompt: string, n: number, stream = true) => ({ prompt, max_tokens: n, n_predict: n, ignore_eos: true, temperature: 0, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) })

/** True when an SSE answer has its closing [DONE] event and some generated text. */
export const completeStream = (b: Buffer) => /data: \[DONE\]\s*$/.test(b.toString('utf8')) && /"(text|content)":"[^"]/.test(b.toString('utf8'))

/** Polls until `f` returns true (or throws after `timeoutMs`): the same under vitest, Bun and Deno. */
export async function waitUntil(f: () => boolean, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const t0 = Date.now()
  while (!f()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** One raw HTTP request with chosen headers and body bytes (the gateway's access and body checks). */
export function send(url: string, o: { method?: string; path: string; headers?: Record<string, string>; body?: Uint8Array | string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : typeof o.body === 'string' ? Buffer.from(o.body) : Buffer.from(o.body)
    const req = request(new URL(o.path, url), { method: o.method ?? 'POST', headers: { ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...o.headers } }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
