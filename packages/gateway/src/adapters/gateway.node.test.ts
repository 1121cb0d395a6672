import { createServer as createTcpServer, type Socket } from 'node:net'
import { parseSlo } from '@kerneltune/serving'
import { startInstantServer, type InstantServer } from '@kerneltune/serving/node'
import { afterEach, describe, expect, it } from 'vitest'
import { startGateway, type Decision, type Gateway } from './gateway.node.ts'
import { completeStream, completion, post, waitUntil } from './test-client.node.ts'

const objectives = parseSlo('ttft_p99_ms=200,tpot_p99_ms=20')
const open: { close(): Promise<unknown> }[] = []
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close()
})
const instant = async (tokenDelayMs: number) => {
  const s = await startInstantServer({ tokenDelayMs })
  open.push(s)
  return s
}
const gateway = async (servers: Record<string, InstantServer>, extra: Partial<Parameters<typeof startGateway>[0]> = {}) => {
  const g = await startGateway({
    arms: Object.entries(servers).map(([id, s]) => ({ id, target: { kind: 'endpoint', url: s.baseUrl } })),
    fallback: 'defaults', objectives, seed: 1, ...extra,
  })
  open.push({ close: () => g.stop() })
  return g
}

describe('startGateway (endpoint arms)', () => {
  it('should pass every arm\'s bytes through unchanged, streamed and not, on both APIs', async () => {
    const upstream = new Map<number, Buffer[]>()
    const g = await gateway({ defaults: await instant(0), other: await instant(1) }, { onUpstreamChunk: (id, _arm, c) => void (upstream.get(id) ?? upstream.set(id, []).get(id)!).push(Buffer.from(c)) })
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => post(g.url, '/v1/completions', completion(`p${i}`, 8))),
      post(g.url, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true }),
      post(g.url, '/v1/completions', completion('plain', 4, false)),
    ])
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(['defaults', 'other']).toContain(a.arm)
      expect(a.body.equals(Buffer.concat(upstream.get(a.requestId!)!))).toBe(true)
      expect(completeStream(a.body)).toBe(true)
    }
    const s = g.status()
    expect(s.totals).toMatchObject({ requests: 14, failed: 0, retries: 0 })
    expect(s.arms.reduce((t, a) => t + a.requests, 0)).toBe(14)
  })

  it('should shift traffic to the arm that meets the objectives with more headroom', async () => {
    const decisions: Decision[] = []
    // 12 ms per token meets the 20 ms TPOT budget (on a quiet machine) with far less headroom than 0 ms.
    const g = await gateway({ defaults: await instant(12), fast: await instant(0) }, { onDecision: (d) => decisions.push(d) })
    for (let round = 0; round < 15; round++) await Promise.all(Array.from({ length: 4 }, (_, i) => post(g.url, '/v1/completions', completion(`r${round}-${i}`, 6))))
    const late = decisions.slice(-20)
    expect(late.filter((d) => d.arm === 'fast').length).toBeGreaterThanOrEqual(16)
    const m = await (await fetch(`${g.url}/metrics`)).text()
    expect(m).toMatch(/kerneltune_gateway_requests_total\{arm="fast"\} \d+/)
    expect(Number(/kerneltune_gateway_traffic_share\{arm="fast"\} ([\d.]+)/.exec(m)![1])).toBeGreaterThan(0.6)
    expect(m).toMatch(/kerneltune_gateway_posterior_mean\{arm="defaults"\} 0\.\d+/)
  })

  it('should retry on another arm a request whose arm refused the connection, mark it down and bring it back when it answers', async () => {
    const dead = await instant(0)
    const g = await gateway({ defaults: await instant(0), dead })
    const port = dead.port
    await dead.close()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(g.url, '/v1/completions', completion(`k${i}`, 3))))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    expect(answers.every((a) => a.arm === 'defaults' && completeStream(a.body))).toBe(true)
    const s = g.status()
    expect(s.totals.failed).toBe(0)
    expect(s.arms.find((a) => a.arm === 'dead')).toMatchObject({ up: false, requests: 0 })
    expect(s.arms.find((a) => a.arm === 'dead')!.retriedAway).toBeGreaterThanOrEqual(1)
    expect(s.totals.retries).toBe(s.arms.find((a) => a.arm === 'dead')!.retriedAway)
    // The same port answers again: the poll marks the arm up.
    open.push(await startInstantServer({ port }))
    await waitUntil(() => g.arm('dead').up, 10_000, 'the arm coming back')
  })

  it('should send a request again on a fresh connection to the same arm when its pooled connection was closed, without counting it against the arm', async () => {
    // A server that answers the first request of each connection with keep-alive and drops the
    // connection on the second, as a server that closed an idle connection meanwhile.
    const body = 'data: {"choices":[{"text":"a"}]}\n\ndata: {"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":1}}\n\ndata: [DONE]\n\n'
    const sockets = new Set<Socket>()
    const tcp = createTcpServer((sock) => {
      sockets.add(sock)
      let seen = 0
      sock.on('data', (d) => {
        if (!d.toString().includes('POST ') && !d.toString().includes('GET ')) return
        if (++seen > 1) return void sock.destroy()
        sock.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`)
      })
      sock.on('close', () => sockets.delete(sock))
    })
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()))
    open.push({ close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); tcp.close(() => r()) }) })
    const url = `http://127.0.0.1:${(tcp.address() as { port: number }).port}`
    const g = await startGateway({ arms: [{ id: 'defaults', target: { kind: 'endpoint', url } }], fallback: 'defaults', objectives })
    open.push({ close: () => g.stop() })
    for (let i = 0; i < 3; i++) {
      const a = await post(g.url, '/v1/completions', completion(`s${i}`, 1))
      expect(a.status).toBe(200)
      expect(a.body.toString()).toBe(body)
    }
    const s = g.status()
    expect(s.totals).toMatchObject({ requests: 3, failed: 0, retries: 0 })
    // Deno's node:http client opens a new connection per request (no pooled socket to go stale).
    if (!('Deno' in globalThis)) expect(s.totals.staleConnections).toBeGreaterThanOrEqual(1)
    expect(s.arms[0]).toMatchObject({ requests: 3, retriedAway: 0, up: true })
  })

  it('should drain in-flight requests on stop and then refuse new ones', async () => {
    const g = await startGateway({ arms: [{ id: 'defaults', target: { kind: 'endpoint', url: (await instant(30)).baseUrl } }], fallback: 'defaults', objectives })
    const slow = post(g.url, '/v1/completions', completion('slow', 10))
    await waitUntil(() => g.status().totals.inFlight === 1)
    const stopping = g.stop()
    const a = await slow
    expect(a.status).toBe(200)
    expect(completeStream(a.body)).toBe(true)
    const final = await stopping
    expect(final).toMatchObject({ draining: true, totals: { requests: 1, failed: 0, inFlight: 0 } })
    await expect(post(g.url, '/v1/completions', completion('late', 1))).rejects.toThrow()
  })

  it('should refuse a bad setup with clear errors', async () => {
    const s = await instant(0)
    await expect(startGateway({ arms: [], fallback: 'defaults', objectives })).rejects.toThrow(/at least one arm/)
    await expect(startGateway({ arms: [{ id: 'a', target: { kind: 'endpoint', url: s.baseUrl } }], fallback: 'defaults', objectives })).rejects.toThrow(/fallback arm defaults/)
    await expect(startGateway({ arms: [{ id: 'defaults', target: { kind: 'endpoint', url: s.baseUrl } }], fallback: 'defaults', objectives: [] })).rejects.toThrow(/latency objective/)
  })
})
