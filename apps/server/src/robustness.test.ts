/**
 * Issue 23 items 14 and 18 over real HTTP: the Node server on a loopback port with the embedded
 * store (and PostgreSQL when KERNELTUNE_TEST_PG_URL is set). A body nested deeper than any valid
 * request is a 400 that stores nothing, on every route; names with control characters are refused;
 * tenants are normalised; an unexpected 500 is logged with the request id the client gets back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { normaliseTenant } from '@kerneltune/core'
import { openStore, type Store } from '@kerneltune/store'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { API_BASE } from './app.ts'
import { legacyTenantNotes } from './guard.ts'
import { MAX_BODY_DEPTH } from './http.ts'
import { serve, type RunningServer } from './node.ts'
import { SMALL_RUN } from './test-helpers.ts'

const PG = process.env.KERNELTUNE_TEST_PG_URL
const ADMIN = 'robustness-suite-admin-token-0123456789'
const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)
const entry = (extra: Record<string, unknown> = {}) => ({ name: 'k', kernelFamily: 'gemv', provider: 'human', source: '', ...extra })

interface Setup { server: RunningServer; store: Store; logs: string[]; admin: string; other: string; tenant: string }

async function start(url: string): Promise<Setup> {
  const store = await openStore(url)
  const logs: string[] = []
  const server = await serve({ port: 0, store, env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: (l) => void logs.push(l) })
  // A tenant of its own, so a shared PostgreSQL database holding other suites' rows is fine.
  const tenant = `robust-${globalThis.crypto.randomUUID().slice(0, 8)}`
  const admin = (await store.tokens.create('admin', tenant)).token
  const other = (await store.tokens.create('admin', `${tenant}-other`)).token
  return { server, store, logs, admin, other, tenant }
}

const call = (s: Setup, method: string, path: string, body?: string, token = s.admin) =>
  fetch(`${s.server.url}${API_BASE}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body } : {}) })

for (const [name, url] of [['embedded store', ':memory:'], ['PostgreSQL', PG]] as const) {
  const skip = name === 'PostgreSQL' && requireOrSkip(Boolean(PG), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)', { runtimes: ['node'] })
  describe.skipIf(skip)(`deeply nested bodies, ${name}`, () => {
    let s: Setup
    beforeAll(async () => { s = await start(url!) })
    afterAll(async () => {
      await s?.server.close()
      await s?.store.close()
    })

    it.each([4110, 10_000, MAX_BODY_DEPTH + 1])('should answer 400 to registry metadata nested %i deep and store nothing', async (depth) => {
      const res = await call(s, 'POST', '/registry', JSON.stringify(entry()).replace(/}$/, `,"metadata":${nested(depth)}}`))
      expect(res.status).toBe(400)
      const doc = (await res.json()) as { error: { code: string; problems: string[] } }
      expect(doc.error.code).toBe('INVALID_INPUT')
      expect(doc.error.problems.join()).toMatch(/nested more than 64 levels deep/)
      expect(await s.store.registry.list(s.tenant)).toEqual([])
      expect(s.logs.filter((l) => / 500 /.test(l))).toEqual([])
    })

    it('should answer 400 to metadata past its own bound (16 levels, 64 KiB) and take it at the bound', async () => {
      const deep = await call(s, 'POST', '/registry', JSON.stringify(entry({ metadata: JSON.parse(nested(17)) })))
      expect(deep.status).toBe(400)
      expect(((await deep.json()) as { error: { problems: string[] } }).error.problems).toEqual(['body.metadata: nested more than 16 levels deep (objects and arrays); flatten it'])
      const big = await call(s, 'POST', '/registry', JSON.stringify(entry({ metadata: { notes: 'x'.repeat(70_000) } })))
      expect(big.status).toBe(400)
      expect(JSON.stringify(await big.json())).toMatch(/over the limit of 65536/)
      expect(await s.store.registry.list(s.tenant)).toEqual([])
      const ok = await call(s, 'POST', '/registry', JSON.stringify(entry({ metadata: JSON.parse(nested(16)) })))
      expect(ok.status).toBe(201)
      expect(await s.store.registry.list(s.tenant)).toHaveLength(1)
    })

    it.each([
      ['POST', '/runs', (deep: string) => JSON.stringify(SMALL_RUN).replace(/}$/, `,"extra":${deep}}`)],
      ['POST', '/runs', (deep: string) => JSON.stringify({ ...SMALL_RUN, model: '@' }).replace('"@"', deep)],
      ['POST', '/tune', (deep: string) => `{"model":${deep}}`],
      ['POST', '/deployments', (deep: string) => `{"name":"d","engine":"vllm","engineVersion":${deep}}`],
      ['POST', '/tokens', (deep: string) => `{"role":"viewer","label":${deep}}`],
      ['POST', '/cache/flush', (deep: string) => `{"engine":${deep}}`],
      ['POST', '/registry/00000000-0000-0000-0000-000000000000/approve', (deep: string) => `{"reason":${deep}}`],
      ['POST', '/runs', (deep: string) => deep.replaceAll('{"a":', '[').replaceAll('{}', '[]').replaceAll('}', ']')],
    ])('should answer 400 to %s %s with a body nested 4,110 deep, changing nothing', async (method, path, body) => {
      const before = { runs: (await s.store.runs.list(s.tenant, { limit: 200 })).items.length, tokens: (await s.store.tokens.list()).length }
      const res = await call(s, method, path, body(nested(4110)))
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_INPUT')
      expect({ runs: (await s.store.runs.list(s.tenant, { limit: 200 })).items.length, tokens: (await s.store.tokens.list()).length }).toEqual(before)
    })
  })
}

describe('names and tenants over HTTP', () => {
  let s: Setup
  beforeAll(async () => { s = await start(':memory:') })
  afterAll(async () => {
    await s?.server.close()
    await s?.store.close()
  })

  it.each([
    ['a NUL', 'a\u0000b', /U\+0000 at position 1/],
    ['an escape', 'k\u001b[2J', /U\+001B/],
    ['DEL', 'k\u007f', /U\+007F/],
    ['a C1 control', 'k\u009b', /U\+009B/],
    ['a bidi override', 'k\u202egnp.exe', /U\+202E/],
    ['a leading space', ' k', /whitespace/],
    ['a trailing tab', 'k\t', /U\+0009/],
  ])('should refuse a registry name with %s, storing nothing', async (_, name, why) => {
    const res = await call(s, 'POST', '/registry', JSON.stringify(entry({ name })))
    expect(res.status).toBe(400)
    expect(JSON.stringify(await res.json())).toMatch(why)
    expect(await s.store.registry.list(s.tenant)).toEqual([])
  })

  it('should refuse control characters in every other name field', async () => {
    for (const [path, body] of [
      ['/registry', entry({ kernelFamily: 'ge\u0000mv' })], ['/registry', entry({ provider: 'x\u0085' })],
      ['/deployments', { name: 'd\u0000', engine: 'vllm', engineVersion: '0.6' }], ['/deployments', { name: 'd', engine: 'vllm', engineVersion: '0.6\n' }],
      ['/tokens', { role: 'viewer', label: 'ops\u0000' }], ['/cache/flush', { engine: 'vllm\u0000' }],
    ] as const) {
      const res = await call(s, 'POST', path, JSON.stringify(body))
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400)
    }
  })

  it('should refuse control characters in a run request\'s model and hardware names, creating no run', async () => {
    for (const body of [{ ...SMALL_RUN, model: { ...SMALL_RUN.model, name: 'tiny\u0000evil' } }, { ...SMALL_RUN, hardware: { ...SMALL_RUN.hardware, name: 'H100\u001b[2J' } }]) {
      const res = await call(s, 'POST', '/runs', JSON.stringify(body))
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { problems: string[] } }).error.problems.join()).toMatch(/body\.(model|hardware)\.name: must not contain control characters/)
    }
    expect((await s.store.runs.list(s.tenant, { limit: 10 })).items).toEqual([])
    const ok = await call(s, 'POST', '/runs', JSON.stringify({ ...SMALL_RUN, model: { ...SMALL_RUN.model, name: 'tiny – 1.1B' } }))
    expect(ok.status).toBe(202)
  })

  it('should store a name with printable Unicode as sent, and list it in full', async () => {
    const res = await call(s, 'POST', '/registry', JSON.stringify(entry({ name: 'gemv q4 – Ünïcode 内核' })))
    expect(res.status).toBe(201)
    const list = (await (await call(s, 'GET', '/registry')).json()) as { items: { name: string }[] }
    expect(list.items.map((e) => e.name)).toEqual(['gemv q4 – Ünïcode 内核'])
  })

  it('should normalise tenant names (ACME, full-width ＡＣＭＥ) and refuse ., .. and empty', async () => {
    for (const given of ['ACME', 'ＡＣＭＥ', 'acme']) {
      const res = await fetch(`${s.server.url}${API_BASE}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'viewer', tenant: given }) })
      expect(res.status).toBe(201)
      expect(((await res.json()) as { tenant: string }).tenant).toBe('acme')
    }
    for (const given of ['.', '..', '...', '', 'a/b', 'a b']) {
      const res = await fetch(`${s.server.url}${API_BASE}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'viewer', tenant: given }) })
      expect(res.status, JSON.stringify(given)).toBe(400)
      expect(((await res.json()) as { error: { problems: string[] } }).error.problems[0]).toMatch(/^body\.tenant: /)
    }
  })

  it('should let an admin name its own tenant in any case, and refuse another tenant in any case', async () => {
    const own = await call(s, 'POST', '/tokens', JSON.stringify({ role: 'viewer', tenant: s.tenant.toUpperCase() }))
    expect(own.status).toBe(201)
    expect(((await own.json()) as { tenant: string }).tenant).toBe(s.tenant)
    const other = await call(s, 'POST', '/tokens', JSON.stringify({ role: 'viewer', tenant: s.tenant.toUpperCase() }), s.other)
    expect(other.status).toBe(403)
  })

  it('should refuse a KERNELTUNE_ADMIN_TENANT the API would refuse, before storing a token', async () => {
    const store = await openStore(':memory:')
    await expect(serve({ port: 0, store, env: { KERNELTUNE_ADMIN_TOKEN: ADMIN, KERNELTUNE_ADMIN_TENANT: '..' }, log: () => {} })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/KERNELTUNE_ADMIN_TENANT/) })
    expect(await store.tokens.count()).toBe(0)
    await store.close()
  })

  it('should keep tenants stored before normalisation, and say so at start', async () => {
    const store = await openStore(':memory:')
    const legacy = (await store.tokens.create('admin', 'ACME')).token
    await store.tokens.create('admin', 'acme')
    const logs: string[] = []
    const server = await serve({ port: 0, store, env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: (l) => void logs.push(l) })
    try {
      expect(logs.join('\n')).toMatch(/tenants "ACME", "acme" are one name once normalised \("acme"\) but are stored apart/)
      // The legacy token still works, on its own tenant's rows only.
      const res = await fetch(`${server.url}${API_BASE}/registry`, { method: 'POST', headers: { authorization: `Bearer ${legacy}`, 'content-type': 'application/json' }, body: JSON.stringify(entry()) })
      expect(res.status).toBe(201)
      expect(((await res.json()) as { tenant: string }).tenant).toBe('ACME')
      expect(await store.registry.list('acme')).toEqual([])
    } finally {
      await server.close()
      await store.close()
    }
    expect(legacyTenantNotes(['x', '..'], normaliseTenant)).toEqual(['kerneltune: tenant ".." is stored in a form the API no longer accepts (it is refused now); its tokens keep working, and requests that omit "tenant" act on it'])
  })
})

describe('unexpected errors', () => {
  it('should log a 500 with the request id the client gets, without the token', async () => {
    const store = await openStore(':memory:')
    const logs: string[] = []
    const server = await serve({ port: 0, store, env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: (l) => void logs.push(l) })
    try {
      // A real failure of a real part: the store is closed under the running server. Tokens are
      // checked first, so the request fails inside authentication: the store throws.
      await store.close()
      const res = await fetch(`${server.url}${API_BASE}/registry`, { headers: { authorization: `Bearer ${ADMIN}` } })
      expect(res.status).toBe(500)
      const doc = (await res.json()) as { error: { code: string; requestId: string } }
      expect(doc.error.code).toBe('INTERNAL')
      expect(res.headers.get('x-request-id')).toBe(doc.error.requestId)
      const line = logs.find((l) => l.includes(doc.error.requestId))
      expect(line).toMatch(new RegExp(`^kerneltune: 500 on GET ${API_BASE}/registry \\(request ${doc.error.requestId}\\): `))
      expect(logs.join('\n')).not.toContain(ADMIN)
    } finally {
      await server.close().catch(() => undefined)
    }
  })
})
