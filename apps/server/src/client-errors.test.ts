/**
 * A client's mistakes are answered and counted as the client's (issue 34 item 26): a body cut off
 * by the request timeout was a 500 in the request metrics and the error log; a 400 for an unknown
 * key quoted the key twice (a 1 MB key gave a 2 MB answer). Model paths Node cannot look up are in
 * model-paths.test.ts.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '@kerneltune/store'
import { API_BASE } from './app.ts'
import { serve, type RunningServer } from './node.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

const ADMIN = 'client-errors-admin-token-0123456789'
const entry = { name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}' }

/**
 * Sends the head of a POST that promises 100 bytes of body, waits until the server has handed the
 * request to the app (Node answers `Expect: 100-continue` just before), sends some of the body,
 * then leaves (`leave`) or waits; resolves with what the server wrote once the connection closes.
 */
function partialBody(port: number, leave: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1')
    let reply = ''
    sock.on('data', (d) => {
      reply += d.toString()
      if (!/^HTTP\/1\.1 100 Continue\r\n\r\n$/.test(reply)) return
      sock.write('{"name":')
      if (leave) sock.destroy()
    })
    sock.on('close', () => resolve(reply))
    sock.on('error', reject)
    sock.write(`POST ${API_BASE}/registry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`)
  })
}

describe('a request body cut off mid-way (over loopback)', () => {
  let server: RunningServer
  const logs: string[] = []
  beforeAll(async () => {
    server = await serve({ port: 0, store: await openStore(':memory:'), env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: (l) => logs.push(l), headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 1000 })
  })
  afterAll(() => server.close())

  /** The request counter of POST /registry by status, once `expected` answers have been counted. */
  async function counted(expected: number): Promise<Record<string, number>> {
    for (;;) {
      const text = await (await fetch(`${server.url}/metrics`)).text()
      const byStatus: Record<string, number> = {}
      for (const m of text.matchAll(/kerneltune_l1_http_requests_total\{method="POST",route="\/api\/v1\/kernels\/registry",status="(\d+)"\} (\d+)/g)) byStatus[m[1]!] = Number(m[2])
      if (Object.values(byStatus).reduce((a, b) => a + b, 0) >= expected) return byStatus
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('should count a body the request timeout cut off as a 408, and log no server error', async () => {
    const reply = await partialBody(server.port, false)
    expect(reply).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 408/)
    expect(await counted(1)).toEqual({ 408: 1 })
    expect(logs.filter((l) => /500/.test(l))).toEqual([])
  }, 15_000)

  it('should count a body its client abandoned as a 400, not a server error', async () => {
    await partialBody(server.port, true)
    expect(await counted(2)).toEqual({ 408: 1, 400: 1 })
    expect(logs.filter((l) => /500/.test(l))).toEqual([])
  }, 15_000)
})

describe('400 answers quote a client\'s keys in bounded pieces', () => {
  it('should cut a 1 MB unknown key to its first 64 characters and answer in under 2 KB', async () => {
    const t = await testApp()
    const key = 'k'.repeat(1_000_000)
    const res = await t.call('POST', `${API_BASE}/registry`, { body: { ...entry, [key]: 1 } })
    const text = await res.text()
    expect(res.status).toBe(400)
    expect(text.length).toBeLessThan(2000)
    const doc = JSON.parse(text)
    expect(doc.error.problems).toEqual([`body.(root): Unrecognized key: "${'k'.repeat(64)}…"`])
    expect(doc.error.message).toContain(`"${'k'.repeat(64)}…"`)
    expect(text).not.toContain('k'.repeat(65))
  })

  it('should list at most 10 unknown keys and 20 problems, counting the rest', async () => {
    const t = await testApp()
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`extra${i}`, i]))
    const keys = await t.call('POST', `${API_BASE}/registry`, { body: { ...entry, ...many } })
    const keysText = await keys.text()
    expect(keys.status).toBe(400)
    expect(keysText.length).toBeLessThan(2000)
    expect(JSON.parse(keysText).error.problems).toEqual([expect.stringMatching(/^body\.\(root\): Unrecognized keys: "extra0", .*"extra9" and 9990 more$/)])
    // Five lists of 64 (their longest) wrong elements: one zod issue each.
    const restrict = Object.fromEntries(Object.keys(SMALL_RUN.restrict).map((d) => [d, Array(64).fill(0)]))
    const wrong = await t.call('POST', `${API_BASE}/runs`, { token: t.tokens.operator, body: { ...SMALL_RUN, restrict } })
    const wrongText = await wrong.text()
    const doc = JSON.parse(wrongText)
    expect(wrong.status).toBe(400)
    expect(doc.error.problems).toHaveLength(20)
    expect(doc.error.message).toMatch(/; and 300 more problems$/)
    expect(wrongText.length).toBeLessThan(20_000)
  })

  it('should show a key with control characters escaped, not raw', async () => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/registry`, { body: { ...entry, 'a\u001b[2Kb': 1 } })
    const doc = await res.json() as any
    expect(doc.error.problems).toEqual(expect.arrayContaining(['body.(root): Unrecognized key: "a\\u001b[2Kb"']))
    // No message or problem carries the escape character itself (which would reach a terminal).
    expect([doc.error.message, ...doc.error.problems].filter((s: string) => s.includes('\u001b'))).toEqual([])
  })
})
