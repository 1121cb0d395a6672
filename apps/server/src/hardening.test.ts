import { describe, it, expect } from 'vitest'
import { openStore } from '@kerneltune/store'
import { API_BASE, bootstrapAdmin } from './app.ts'
import { DEFAULT_MAX_BODY_BYTES } from './http.ts'
import { testApp } from './test-helpers.ts'

const submit = (source: string) => JSON.stringify({ name: 'k', kernelFamily: 'gemv', provider: 'human', source })

describe('request body limit', () => {
  it('should answer 413 with the limit for a body whose Content-Length is over it, before reading it', async () => {
    const t = await testApp({}, { maxBodyBytes: 1024 })
    const body = submit('x'.repeat(2000))
    const res = await t.app.request(`${API_BASE}/registry`, { method: 'POST', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'application/json', 'content-length': String(body.length) }, body })
    expect(res.status).toBe(413)
    const doc = (await res.json()) as { error: { code: string; message: string } }
    expect(doc.error.code).toBe('PAYLOAD_TOO_LARGE')
    expect(doc.error.message).toMatch(/limit of 1024 bytes/)
  })

  it('should stop a streamed body without a Content-Length once it passes the limit', async () => {
    const t = await testApp({}, { maxBodyBytes: 1024 })
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      // An endless body: the server must stop reading it.
      pull(c) { pulled++; c.enqueue(new TextEncoder().encode('x'.repeat(512))) },
    })
    const res = await t.app.request(`${API_BASE}/registry`, { method: 'POST', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit)
    expect(res.status).toBe(413)
    expect(pulled).toBeLessThan(10)
  })

  it('should accept the largest valid body under the default limit, and refuse one over it', async () => {
    const t = await testApp()
    const ok = await t.call('POST', `${API_BASE}/registry`, { raw: submit('x'.repeat(1_000_000)) })
    expect(ok.status).toBe(201)
    const big = await t.call('POST', `${API_BASE}/runs`, { raw: JSON.stringify({ pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) }) })
    expect(big.status).toBe(413)
  })
})

describe('bootstrap token', () => {
  it('should refuse a short KERNELTUNE_ADMIN_TOKEN by name, on an empty store and on a used one', async () => {
    const store = await openStore(':memory:')
    await expect(bootstrapAdmin(store, { KERNELTUNE_ADMIN_TOKEN: 'short' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/KERNELTUNE_ADMIN_TOKEN must be 16 to 512 characters.*has 5/) })
    expect(await store.tokens.count()).toBe(0)
    expect(await bootstrapAdmin(store, { KERNELTUNE_ADMIN_TOKEN: 'a-long-enough-admin-token' })).toEqual({ created: true })
    expect(await store.tokens.verify('a-long-enough-admin-token')).toMatchObject({ role: 'superadmin', tenant: 'default', label: 'bootstrap admin' })
    await expect(bootstrapAdmin(store, { KERNELTUNE_ADMIN_TOKEN: 'short' })).rejects.toMatchObject({ message: expect.stringMatching(/KERNELTUNE_ADMIN_TOKEN/) })
    await store.close()
  })
})
