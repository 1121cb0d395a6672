import { describe, it, expect } from 'vitest'
import { API_BASE, ROUTES } from './app.ts'
import { roleAllows } from './http.ts'
import { HARDWARE, ROLES, SMALL_RUN, testApp } from './test-helpers.ts'

/**
 * The role × route × tenant matrix, generated from the route table: every route, called by every
 * role (superadmin included) of the resource's own tenant (acme) and of another tenant (globex).
 * A route missing from REQUESTS fails the test, so a new route cannot escape the matrix.
 */
type T = Awaited<ReturnType<typeof testApp>>
interface Fixtures { run: string; tune: string; registry: string; deployment: string; token: string }
interface Req { id?: keyof Fixtures; query?: Record<string, string>; body?: (fx: Fixtures) => unknown }

const OWN = 'acme'
// Two matmul paths, and keep, so that a tune session has something to search whatever the evidence.
const RUN = { ...SMALL_RUN, restrict: { ...SMALL_RUN.restrict, matmul_path: ['cublas', 'cutlass'] } }
const TUNE = (runId: string) => ({ runId, budget: { trials: 1 }, strategy: 'random', keep: ['matmul_path'] })

/** One valid request per route, against acme's resources. */
const REQUESTS: Record<string, Req> = {
  'POST /runs': { body: () => SMALL_RUN },
  'GET /runs': {},
  'GET /runs/:id': { id: 'run' },
  'GET /runs/:id/combos': { id: 'run' },
  'GET /runs/:id/events': { id: 'run' },
  'POST /runs/:id/cancel': { id: 'run' },
  'POST /runs/:id/apply': { id: 'run', body: () => ({ force: true }) },
  'DELETE /runs/:id': { id: 'run' },
  'POST /tune': { body: (fx) => TUNE(fx.run) },
  'GET /tune/:id': { id: 'tune' },
  'GET /tune/:id/events': { id: 'tune' },
  'POST /tune/:id/cancel': { id: 'tune' },
  'POST /tune/:id/resume': { id: 'tune' },
  'GET /registry': {},
  'POST /registry': { body: () => ({ name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}' }) },
  'GET /registry/:id/audit': { id: 'registry' },
  'POST /registry/:id/approve': { id: 'registry' },
  'POST /registry/:id/deprecate': { id: 'registry' },
  'GET /catalog/preview': { query: { engine: 'vllm', hardware: JSON.stringify(HARDWARE) } },
  'POST /deployments': { body: () => ({ name: 'd', engine: 'vllm', engineVersion: '0.6.0' }) },
  'GET /deployments-recent': {},
  'GET /options': {},
  'GET /deployments/:id/current-combo': { id: 'deployment' },
  'GET /deployments/:id/drift': { id: 'deployment' },
  'GET /deployments/:id/gateway': { id: 'deployment' },
  'POST /deployments/:id/validate': { id: 'deployment' },
  'POST /tokens': { body: () => ({ role: 'viewer', tenant: OWN }) },
  'GET /tokens': {},
  'GET /tokens/audit': {},
  'DELETE /tokens/:id': { id: 'token' },
  'POST /cache/flush': { body: () => ({ tenant: OWN }) },
  'POST /metrics/client': { body: () => ({ metric: 'landing_ttfs_seconds', value: 1 }) },
}

/** Fresh resources of tenant acme, made through the store and the queue (not through the routes under test). */
async function fixtures(t: T): Promise<Fixtures> {
  const res = await t.call('POST', `${API_BASE}/runs`, { body: RUN, token: t.tokens.operator })
  const run = ((await res.json()) as { id: string }).id
  await t.queue.idle()
  const tune = ((await (await t.call('POST', `${API_BASE}/tune`, { body: TUNE(run), token: t.tokens.operator })).json()) as { id: string }).id
  await t.queue.idle()
  const registry = (await t.store.registry.submit({ tenant: OWN, name: 'fx', kernelFamily: 'gemv', provider: 'human', source: '', actor: 'test' })).id
  const deployment = (await t.store.deployments.create({ tenant: OWN, name: 'fx', engine: 'vllm', engineVersion: '0.6.0' })).id
  const token = (await t.store.tokens.create('viewer', OWN, 'fx')).info.id
  return { run, tune, registry, deployment, token }
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`

describe('tenant matrix', () => {
  it('should have a request for every route in the route table', () => {
    const missing = ROUTES.map(({ spec }) => key(spec.method, spec.path)).filter((k) => !REQUESTS[k])
    expect(missing, 'add these routes to REQUESTS in tenant-matrix.test.ts').toEqual([])
  })

  it('should allow each role its routes in its own tenant, and never let one tenant reach another\'s resources', async () => {
    const t = await testApp()
    const failures: string[] = []
    for (const { spec } of ROUTES) {
      const req = REQUESTS[key(spec.method, spec.path)]
      if (!req) continue
      if (spec.path.includes(':id') && !req.id) throw new Error(`${key(spec.method, spec.path)} has an :id but no fixture in REQUESTS`)
      for (const role of ROLES) {
        const fx = await fixtures(t)
        const path = API_BASE + spec.path.replace(':id', req.id ? fx[req.id] : '') + (req.query ? `?${new URLSearchParams(req.query)}` : '')
        const body = req.body?.(fx)
        const allowed = roleAllows(role, spec.role)
        const label = `${role} ${key(spec.method, spec.path)}`
        const mentions = JSON.stringify({ path, body })
        const refsResource = Object.values(fx).some((id) => mentions.includes(id))
        const refsTenant = (body as { tenant?: string } | undefined)?.tenant === OWN

        // Another tenant first (it must change nothing of acme's), then the resource's own tenant.
        const foreign = await t.call(spec.method.toUpperCase(), path, { token: t.others[role], body })
        const text = await foreign.text()
        await t.queue.idle()
        if (!allowed) {
          if (foreign.status !== 403) failures.push(`${label} from globex: ${foreign.status}, expected 403 (role)`)
        } else if (refsResource) {
          if (![403, 404].includes(foreign.status)) failures.push(`${label} from globex on acme's resource: ${foreign.status}, expected 404`)
        } else if (refsTenant) {
          const want = role === 'superadmin' ? [200, 201] : [403]
          if (!want.includes(foreign.status)) failures.push(`${label} from globex naming tenant acme: ${foreign.status}, expected ${want.join('/')}`)
        } else {
          if (foreign.status >= 300) failures.push(`${label} from globex: ${foreign.status}, expected 2xx`)
          if (Object.values(fx).some((id) => text.includes(id))) failures.push(`${label} from globex leaked an acme id: ${text.slice(0, 200)}`)
        }

        const own = await t.call(spec.method.toUpperCase(), path, { token: t.tokens[role], body })
        await own.text()
        await t.queue.idle()
        if (!allowed && own.status !== 403) failures.push(`${label} in acme: ${own.status}, expected 403 (role)`)
        // 409: the call reached the resource and found it in a state that refuses the action (a completed session resumed).
        if (allowed && !(own.status < 300 || own.status === 409)) failures.push(`${label} in acme: ${own.status}, expected 2xx`)
      }
    }
    expect(failures).toEqual([])
  }, 300_000)
})

describe('shared result cache', () => {
  it('should share cached results across tenants only when KERNELTUNE_SHARED_CACHE is on, and say so in the run', async () => {
    for (const [env, shared] of [[{}, false], [{ KERNELTUNE_SHARED_CACHE: 'true' }, true]] as const) {
      const t = await testApp(env)
      const runs: { id: string }[] = []
      for (const token of [t.tokens.operator, t.others.operator]) {
        runs.push((await (await t.call('POST', `${API_BASE}/runs`, { token, body: SMALL_RUN })).json()) as { id: string })
        await t.queue.idle()
      }
      const second = (await (await t.call('GET', `${API_BASE}/runs/${runs[1]!.id}`, { token: t.others.viewer })).json()) as { summary: { cacheScope: string; counts: { cached: number; total: number } } }
      expect(second.summary.cacheScope).toBe(shared ? 'shared' : 'tenant')
      expect(second.summary.counts.cached).toBe(shared ? second.summary.counts.total : 0)
    }
  })
})

describe('tenant administration', () => {
  it('should let an admin mint tokens for its own tenant only, and the superadmin for any tenant', async () => {
    const t = await testApp()
    const mint = (token: string, body: unknown) => t.call('POST', `${API_BASE}/tokens`, { token, body })
    const own = await mint(t.tokens.admin, { role: 'viewer' })
    expect(own.status).toBe(201)
    expect(await own.json()).toMatchObject({ tenant: 'acme', role: 'viewer' })
    const cross = await mint(t.tokens.admin, { role: 'viewer', tenant: 'globex' })
    expect(cross.status).toBe(403)
    expect(((await cross.json()) as { error: { message: string } }).error.message).toMatch(/tenant acme.*superadmin/)
    expect((await mint(t.tokens.admin, { role: 'superadmin' })).status).toBe(403)
    const created = await mint(t.tokens.superadmin, { role: 'admin', tenant: 'initech' })
    expect(created.status).toBe(201)
    const token = ((await created.json()) as { token: string }).token
    expect((await t.call('GET', `${API_BASE}/runs`, { token })).status).toBe(200)
    // The minted token of globex cannot read acme's runs.
    const viewer = ((await (await mint(t.tokens.superadmin, { role: 'viewer', tenant: 'globex' })).json()) as { token: string }).token
    const run = ((await (await t.call('POST', `${API_BASE}/runs`, { body: SMALL_RUN })).json()) as { id: string }).id
    await t.queue.idle()
    expect((await t.call('GET', `${API_BASE}/runs/${run}`, { token: viewer })).status).toBe(404)
  })

  it('should flush only the caller\'s tenant\'s cache entries', async () => {
    const t = await testApp()
    for (const token of [t.tokens.operator, t.others.operator]) await t.call('POST', `${API_BASE}/runs`, { token, body: SMALL_RUN })
    await t.queue.idle()
    const count = async (tenant: string) => (await t.store.driver.query('SELECT cache_key FROM result_cache WHERE tenant = ?', [tenant])).length
    const acme = await count('acme')
    expect(acme).toBeGreaterThan(0)
    expect(await count('globex')).toBe(acme)
    const res = await t.call('POST', `${API_BASE}/cache/flush`, { token: t.tokens.admin })
    expect(await res.json()).toEqual({ flushed: acme, tenant: 'acme' })
    expect([await count('acme'), await count('globex')]).toEqual([0, acme])
    const all = await t.call('POST', `${API_BASE}/cache/flush`, { token: t.tokens.admin, body: { allTenants: true } })
    expect([all.status, ((await all.json()) as { error: { message: string } }).error.message]).toEqual([403, expect.stringMatching(/needs the superadmin token/)])
    expect(await (await t.call('POST', `${API_BASE}/cache/flush`, { token: t.tokens.superadmin, body: { allTenants: true } })).json()).toEqual({ flushed: acme, tenant: null })
  })
})
