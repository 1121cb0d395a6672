import { describe, it, expect } from 'vitest'
import { sendRequest } from './request.ts'

// A streamed completion of two tokens with usage, as llama-server sends it.
const stream = () => new Response([
  'data: {"choices":[{"text":"a","finish_reason":null}]}\n\n',
  'data: {"choices":[{"text":"b","finish_reason":"length"}]}\n\n',
  'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n',
  'data: [DONE]\n\n',
].join(''), { headers: { 'content-type': 'text/event-stream' } })

/** A fetch that fails with the given errors first, then streams. */
const flaky = (errors: Error[]) => {
  let calls = 0
  const f = (async () => {
    calls++
    const e = errors.shift()
    if (e) throw e
    return stream()
  }) as unknown as typeof fetch
  return { f, calls: () => calls }
}
const send = (f: typeof fetch) => sendRequest({ baseUrl: 'http://127.0.0.1:1', api: 'completions', spec: { prompt: [1, 2, 3], outputTokens: 2 }, timeoutMs: 5000, fetch: f })

describe('sendRequest', () => {
  it('should send a request once more when a stale pooled connection was reset before the server read it', async () => {
    const bun = flaky([new Error('ECONNRESET: The socket connection was closed unexpectedly.')])
    const r = await send(bun.f)
    expect(r.ok).toBe(true)
    expect(bun.calls()).toBe(2)
    // Node's fetch says "fetch failed" and puts the socket error in `cause`.
    const node = flaky([new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })])
    expect((await send(node.f)).ok).toBe(true)
    expect(node.calls()).toBe(2)
  })

  it('should not retry any other failure, and give up after three stale sockets in a row, saying why', async () => {
    const refused = flaky([new Error('connect ECONNREFUSED 127.0.0.1:1')])
    const r = await send(refused.f)
    expect(r.ok).toBe(false)
    expect(refused.calls()).toBe(1)
    // Several idle pooled sockets can all be stale after a pause: each is tried in turn.
    const three = flaky([new Error('ECONNRESET'), new Error('ECONNRESET'), new Error('ECONNRESET')])
    expect((await send(three.f)).ok).toBe(true)
    expect(three.calls()).toBe(4)
    const four = flaky([new Error('ECONNRESET'), new Error('ECONNRESET'), new Error('ECONNRESET'), new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })])
    const failed = await send(four.f)
    expect(failed).toMatchObject({ ok: false, error: 'fetch failed other side closed UND_ERR_SOCKET' })
    expect(four.calls()).toBe(4)
  })
})
