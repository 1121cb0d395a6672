/**
 * Whose failure is whose, and who may use the gateway (issue 34 items 19–23), with arms that are
 * small HTTP servers doing exactly what each case needs (refuse, die, stream slowly, record what
 * reached them). The same behaviour against real llama-servers: gateway-security.node.test.ts.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { parseSlo } from '@kerneltune/serving'
import { afterEach, describe, expect, it } from 'vitest'
import { startGateway, type Gateway, type GatewayOptions } from './gateway.node.ts'
import { completion, post, send, waitUntil } from './test-client.node.ts'

const objectives = parseSlo('ttft_p99_ms=500,tpot_p99_ms=50')
const SSE = 'data: {"choices":[{"text":"a"}]}\n\ndata: {"choices":[{"text":"b"}]}\n\ndata: {"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":2}}\n\ndata: [DONE]\n\n'
const open: { close(): Promise<unknown> }[] = []
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close()
})

interface Seen { readonly body: string; readonly headers: IncomingHttpHeaders }
type Handler = (seen: Seen, res: ServerResponse, arm: FakeArm) => void
interface FakeArm { readonly baseUrl: string; readonly seen: Seen[]; readonly server: Server; die(): void }

/** An arm: a node:http server that answers /health and hands every completion request to `handle` (default: a complete stream, with llama-server's allow-all CORS header). */
async function fakeArm(handle: Handler = (_s, res) => serve(res)): Promise<FakeArm> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.end(req.url === '/health' ? '{"status":"ok"}' : '{}')
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const s = { body: Buffer.concat(parts).toString('utf8'), headers: req.headers }
      seen.push(s)
      handle(s, res, arm)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const arm: FakeArm = {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, server,
    // As a process that dies: every connection and the listening socket close at once.
    die: () => {
      server.close()
      server.closeAllConnections()
    },
  }
  open.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) })
  return arm
}
const serve = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' })
  res.end(SSE)
}
const refuse = (res: ServerResponse) => {
  res.writeHead(500, { 'content-type': 'application/json' })
  res.end('{"error":{"code":500,"message":"arm says no"}}')
}

async function gateway(arms: Record<string, FakeArm>, extra: Partial<GatewayOptions> = {}): Promise<Gateway> {
  const g = await startGateway({ arms: Object.entries(arms).map(([id, a]) => ({ id, target: { kind: 'endpoint', url: a.baseUrl } })), fallback: 'defaults', objectives, seed: 1, ...extra })
  open.push({ close: () => g.stop() })
  return g
}
/** What an arm's record is made of: client errors and aborts must leave all of it as it was. */
const record = (g: Gateway) => g.status().arms.map((a) => ({ arm: a.arm, requests: a.requests, failures: a.failures, misses: a.misses, retriedAway: a.retriedAway, posterior: a.posterior }))

describe('the gateway\'s checks (fake arms)', () => {
  it('should answer invalid bodies with a 4xx and forward none of them, leaving every arm\'s record as it was', async () => {
    const a = await fakeArm()
    const b = await fakeArm()
    const g = await gateway({ defaults: a, other: b }, { limits: { maxBodyBytes: 64 << 10, maxTokens: 50 } })
    for (let i = 0; i < 6; i++) expect((await post(g.url, '/v1/completions', completion(`ok ${i}`, 2))).status).toBe(200)
    const before = record(g)
    const forwarded = a.seen.length + b.seen.length
    const badUtf8 = Buffer.concat([Buffer.from('{"prompt":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])
    const cases: [string | Uint8Array, number][] = [
      [badUtf8, 400],
      ['{"prompt":"x","max_tokens":1e999}', 400],
      [`{"prompt":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 400],
      ['{"prompt":"x","max_tokens":51}', 400],
      ['{"prompt":"x","n_predict":-5}', 400],
      ['{"prompt":', 400],
      ['{"max_tokens":3}', 400],
      [JSON.stringify({ prompt: 'x'.repeat(70_000) }), 413],
    ]
    for (const [body, status] of cases) {
      const r = await send(g.url, { path: '/v1/completions', body })
      expect([r.status, r.body]).toEqual([status, expect.any(String)])
    }
    expect(a.seen.length + b.seen.length).toBe(forwarded)
    expect(record(g)).toEqual(before)
    expect(g.status().totals).toMatchObject({ requests: 6 + cases.length, clientErrors: cases.length, failed: 0, retries: 0, clientAborts: 0 })
  })

  it('should pass on an answer that every arm refused without charging any arm, and charge an arm that refused what another served', async () => {
    const picky: Handler = (s, res) => (s.body.includes('bad') ? refuse(res) : serve(res))
    const g = await gateway({ defaults: await fakeArm(picky), other: await fakeArm(picky) })
    for (let i = 0; i < 4; i++) await post(g.url, '/v1/completions', completion(`ok ${i}`, 2))
    const before = record(g)
    const r = await send(g.url, { path: '/v1/completions', body: JSON.stringify(completion('bad', 2)) })
    expect(r.status).toBe(500)
    expect(r.body).toBe('{"error":{"code":500,"message":"arm says no"}}')
    expect(record(g)).toEqual(before)
    expect(g.status().totals).toMatchObject({ clientErrors: 1, failed: 0, retries: 1 })

    const broken = await fakeArm((_s, res) => refuse(res))
    const h = await gateway({ defaults: await fakeArm(), broken })
    const got = await Promise.all(Array.from({ length: 12 }, (_, i) => post(h.url, '/v1/completions', completion(`r${i}`, 2))))
    expect(got.every((x) => x.status === 200 && x.arm === 'defaults')).toBe(true)
    const s = h.status()
    const arm = s.arms.find((x) => x.arm === 'broken')!
    expect(arm.retriedAway).toBe(broken.seen.length)
    expect(arm.retriedAway).toBeGreaterThanOrEqual(1)
    expect(s.totals).toMatchObject({ clientErrors: 0, failed: 0, retries: broken.seen.length })
  })

  it('should never send to another arm a request during which an arm\'s server went away', async () => {
    const other = await fakeArm()
    const dying = await fakeArm((_s, _res, arm) => arm.die())
    const g = await gateway({ defaults: other, dying })
    // Thompson sampling picks either arm at first; at most 20 requests until one lands on `dying`.
    let crashed: Awaited<ReturnType<typeof send>> | undefined
    for (let i = 0; i < 20 && !crashed; i++) {
      const r = await send(g.url, { path: '/v1/completions', body: JSON.stringify(completion(`p${i}`, 2)) })
      if (r.status !== 200) crashed = r
    }
    expect(crashed?.status).toBe(502)
    expect(crashed?.body).toMatch(/not retried on another arm/)
    const prompt = JSON.parse(dying.seen[0]!.body).prompt as string
    expect(other.seen.map((s) => JSON.parse(s.body).prompt)).not.toContain(prompt)
    const s = g.status()
    expect(s.totals).toMatchObject({ retries: 0, failed: 1 })
    expect(s.arms.find((a) => a.arm === 'dying')).toMatchObject({ up: false, failures: 1, crashes: 1 })
  })

  it('should count a client that leaves mid-answer as an abort, not as the arm\'s failure', async () => {
    let armSawClose = false
    const slow = await fakeArm((_s, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"choices":[{"text":"a"}]}\n\n')
      const t = setInterval(() => res.write('data: {"choices":[{"text":"b"}]}\n\n'), 20)
      res.on('close', () => (clearInterval(t), (armSawClose = true)))
    })
    const g = await gateway({ defaults: slow })
    const before = record(g)
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(new URL(g.url).port), '127.0.0.1', () => {
        const body = JSON.stringify(completion('leave', 1000))
        sock.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
      })
      sock.once('data', () => (sock.destroy(), resolve()))
      sock.on('error', reject)
    })
    await waitUntil(() => g.status().totals.clientAborts === 1 && g.status().totals.inFlight === 0, 10_000, 'the abort to be counted')
    await waitUntil(() => armSawClose, 10_000, 'the arm\'s answer to be stopped')
    expect(record(g)).toEqual(before)
    expect(g.status().totals).toMatchObject({ failed: 0, clientErrors: 0 })
    expect(g.status().arms[0]).toMatchObject({ clientAborts: 1, failures: 0, requests: 0 })
    expect(await (await fetch(`${g.url}/metrics`)).text()).toMatch(/kerneltune_gateway_client_aborts_total 1\n/)
  })

  it('should refuse with 413 a body that would pass the total held at once, and take bodies again once it is free', async () => {
    const g = await gateway({ defaults: await fakeArm() }, { limits: { maxBodyBytes: 1000, maxTotalBodyBytes: 1500 } })
    const held = JSON.stringify({ prompt: 'h'.repeat(880), max_tokens: 2 })
    const sock = connect(Number(new URL(g.url).port), '127.0.0.1')
    const answer = new Promise<string>((r) => {
      let got = ''
      sock.on('data', (d) => (got += d.toString()))
      sock.on('close', () => r(got))
    })
    sock.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${held.length}\r\n\r\n${held.slice(0, 800)}`)
    await waitUntil(() => g.status().totals.bodyBytesHeld >= 800, 10_000, 'the first body to be held')
    const second = JSON.stringify({ prompt: 'x'.repeat(780), max_tokens: 2 })
    const refused = await send(g.url, { path: '/v1/completions', body: second })
    expect(refused.status).toBe(413)
    expect(refused.body).toMatch(/--max-total-body-mb/)
    sock.write(held.slice(800))
    expect(await answer).toMatch(/^HTTP\/1\.1 200/)
    await waitUntil(() => g.status().totals.bodyBytesHeld === 0, 10_000, 'the bodies to be released')
    expect((await send(g.url, { path: '/v1/completions', body: second })).status).toBe(200)
    expect((await send(g.url, { path: '/v1/completions', body: JSON.stringify({ prompt: 'y'.repeat(1200) }) })).status).toBe(413)
  })

  it('should refuse other Hosts, other web origins and requests without the token, and pass no arm\'s CORS header on', async () => {
    const arm = await fakeArm()
    const token = 'gateway-token-0123456789'
    const g = await gateway({ defaults: arm }, { token, allowOrigins: ['http://localhost:5173'] })
    const body = JSON.stringify(completion('hi', 2))
    const auth = { authorization: `Bearer ${token}` }
    expect((await send(g.url, { path: '/v1/completions', body, headers: { ...auth, host: 'evil.example:8000' } })).status).toBe(403)
    expect((await send(g.url, { path: '/v1/completions', body, headers: { ...auth, origin: 'https://evil.example' } })).status).toBe(403)
    expect((await send(g.url, { path: '/v1/completions', body })).status).toBe(401)
    expect((await send(g.url, { path: '/v1/completions', body, headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401)
    expect((await send(g.url, { method: 'GET', path: '/metrics' })).status).toBe(401)
    expect((await send(g.url, { method: 'GET', path: '/gateway/status' })).status).toBe(401)
    expect(arm.seen).toHaveLength(0)
    expect((await send(g.url, { method: 'GET', path: '/health' })).status).toBe(200)
    const ok = await send(g.url, { path: '/v1/completions', body, headers: auth })
    expect(ok.status).toBe(200)
    expect(ok.headers['access-control-allow-origin']).toBeUndefined()
    const fromPage = await send(g.url, { path: '/v1/completions', body, headers: { ...auth, origin: 'http://localhost:5173' } })
    expect(fromPage.status).toBe(200)
    expect(fromPage.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    const pre = await send(g.url, { method: 'OPTIONS', path: '/v1/completions', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } })
    expect(pre.status).toBe(204)
    expect(pre.headers['access-control-allow-headers']).toMatch(/authorization/)
    // The gateway's token is its own: the arm never sees it.
    expect(arm.seen.every((s) => s.headers.authorization === undefined)).toBe(true)
    await expect(startGateway({ arms: [{ id: 'defaults', target: { kind: 'endpoint', url: arm.baseUrl } }], fallback: 'defaults', objectives, token: 'short' })).rejects.toThrow(/16 characters/)
  })

  it('should write the generation cap into requests that ask for no limit', async () => {
    const arm = await fakeArm()
    const g = await gateway({ defaults: arm }, { limits: { maxTokens: 7 } })
    expect((await send(g.url, { path: '/v1/completions', body: '{"prompt":"x","max_tokens":-1}' })).status).toBe(200)
    expect((await send(g.url, { path: '/v1/chat/completions', body: '{"messages":[{"role":"user","content":"x"}]}' })).status).toBe(200)
    expect(arm.seen.map((s) => JSON.parse(s.body).max_tokens)).toEqual([7, 7])
  })

  it('should close a connection whose headers or body do not arrive within the timeouts', async () => {
    const g = await gateway({ defaults: await fakeArm() }, { timeouts: { headersTimeoutMs: 200, requestTimeoutMs: 400, keepAliveTimeoutMs: 100 } })
    const stall = (text: string) => new Promise<string>((resolve, reject) => {
      let got = ''
      const sock = connect(Number(new URL(g.url).port), '127.0.0.1', () => sock.write(text))
      sock.on('data', (d) => (got += d.toString()))
      sock.on('close', () => resolve(got))
      sock.on('error', reject)
    })
    // waitUntil-style bounds only: the test fails if the gateway never closes them (Node's default request timeout is 300 s).
    const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not closed within 10 s')), 10_000).unref())])
    expect(await bounded(stall('POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n'))).toMatch(/^(HTTP\/1\.1 408 |$)/)
    expect(await bounded(stall('POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{"prompt":'))).toMatch(/^(HTTP\/1\.1 408 |$)/)
    await waitUntil(() => g.status().totals.inFlight === 0, 10_000, 'the cut request to end')
    expect(g.status().totals).toMatchObject({ failed: 0, clientAborts: 1 })
  })
})
