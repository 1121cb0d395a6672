import { describe, expect, it } from 'vitest'
import { routeClient, storeTarget } from './api-client.ts'

describe('storeTarget', () => {
  const env = { KERNELTUNE_TOKEN: 'env-token', KERNELTUNE_TENANT: 'acme' }
  it('should name a server with its token (flag before environment), refusing one without', () => {
    expect(storeTarget({ server: 'http://h:8080/' }, env, () => 'x.db')).toEqual({ kind: 'server', url: 'http://h:8080', token: 'env-token' })
    expect(storeTarget({ server: 'http://h:8080', token: 't' }, env, () => 'x.db')).toMatchObject({ token: 't' })
    expect(() => storeTarget({ server: 'http://h:8080' }, {}, () => 'x.db')).toThrow(/--server needs --token/)
  })
  it('should otherwise name the embedded store: --db, else the default, in the tenant given', () => {
    expect(storeTarget({}, env, () => 'x.db')).toEqual({ kind: 'embedded', databaseUrl: 'x.db', tenant: 'acme' })
    expect(storeTarget({ db: 'y.db', tenant: 't2' }, {}, () => 'x.db')).toEqual({ kind: 'embedded', databaseUrl: 'y.db', tenant: 't2' })
    expect(storeTarget({}, {}, () => 'x.db')).toMatchObject({ tenant: 'default' })
  })
})

describe('routeClient', () => {
  it('should fill in the route, and turn an error answer into the error of its code', async () => {
    const seen: string[] = []
    const c = routeClient<{ 'GET /runs/{id}': { id: string } }, object>({
      base: 'http://x/api',
      fetch: async (r) => (seen.push(`${r.method} ${r.url}`), r.url.endsWith('/a%2Fb') ? Response.json({ id: 'a/b' }) : Response.json({ error: { code: 'NOT_FOUND', message: 'no run' } }, { status: 404 })),
    })
    expect(await c.call('GET /runs/{id}', { params: { id: 'a/b' } })).toEqual({ id: 'a/b' })
    await expect(c.call('GET /runs/{id}', { params: { id: 'c' } })).rejects.toMatchObject({ code: 'NOT_FOUND', message: '404: no run' })
    expect(seen).toEqual(['GET http://x/api/runs/a%2Fb', 'GET http://x/api/runs/c'])
  })
})
