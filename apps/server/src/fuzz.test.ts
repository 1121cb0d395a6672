import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { serve } from '@hono/node-server'
import { API_BASE, ROUTES } from './app.ts'
import { dumpStore, SMALL_RUN, testApp } from './test-helpers.ts'

type T = Awaited<ReturnType<typeof testApp>>

/** Runs, tune sessions, registry entries and deployments in two tenants, so that ids resolve. */
async function populate(t: T) {
  const ids: Record<'runs' | 'tune' | 'registry' | 'deployments', string[]> = { runs: [], tune: [], registry: [], deployments: [] }
  for (const [token, tenant] of [[t.tokens.operator, 'acme'], [t.others.operator, 'globex']] as const) {
    const run = (await (await t.call('POST', `${API_BASE}/runs`, { token, body: { ...SMALL_RUN, restrict: { ...SMALL_RUN.restrict, matmul_path: ['cublas', 'cutlass'] } } })).json()) as { id: string }
    await t.queue.idle()
    const tune = (await (await t.call('POST', `${API_BASE}/tune`, { token, body: { runId: run.id, budget: { trials: 2 }, strategy: 'random', keep: ['matmul_path'] } })).json()) as { id: string }
    await t.queue.idle()
    ids.runs.push(run.id)
    ids.tune.push(tune.id)
    ids.registry.push((await t.store.registry.submit({ tenant, name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}', actor: 'fuzz' })).id)
    ids.deployments.push((await t.store.deployments.create({ tenant, name: 'd', engine: 'vllm', engineVersion: '0.6.0' })).id)
  }
  return ids
}

describe('server robustness', () => {
  it('should answer thousands of malformed requests over HTTP, against a populated store, with 4xx only, and change nothing', async () => {
    const t = await testApp()
    const ids = await populate(t)
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    const address = server.address()
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    try {
      const before = await dumpStore(t.store)
      const junk = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', '%', '..', 'a/b', '%00', ' ', 'ü'))
      // Ids that exist (this tenant's and the other's) as often as junk ones, so handlers run past their lookups.
      const real = fc.constantFrom(...Object.values(ids).flat())
      const body = fc.oneof(
        fc.constant(undefined), fc.string({ maxLength: 50 }), fc.json({ maxDepth: 3 }).map((s) => ({ raw: s })),
        fc.record({ model: fc.anything(), hardware: fc.anything(), engine: fc.anything(), repetitions: fc.anything() }, { requiredKeys: [] }),
        fc.record({ runId: fc.oneof(fc.string(), real), budget: fc.anything(), name: fc.anything(), role: fc.anything(), tenant: fc.anything(), deploymentId: fc.oneof(fc.anything(), real), force: fc.anything() }, { requiredKeys: [] }),
      )
      const query = fc.dictionary(fc.constantFrom('status', 'mode', 'limit', 'offset', 'engine', 'hardware', 'days', 'x'), fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('-1', '1e9', 'NaN', '{}', 'running')), { maxKeys: 3 })
      const token = fc.constantFrom<string | null>(t.tokens.superadmin, t.tokens.admin, t.tokens.viewer, t.tokens.operator, t.others.admin, null, 'kt_garbage_garbage_garbage')
      const statuses = new Map<number, number>()
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES), fc.oneof(junk, real), body, query, token, fc.constantFrom('token', 'query', 'body', 'id'), async ({ spec }, id, b, q, tok, defect) => {
          // Every request carries at least one defect, whatever else is random about it.
          if (defect === 'token') tok = tok === t.tokens.superadmin || tok === t.tokens.admin ? null : 'kt_garbage_garbage_garbage'
          if (defect === 'query' || (defect === 'body' && spec.method === 'get') || (defect === 'id' && !spec.path.includes(':id'))) q = { ...q, zz_unknown: id }
          if (defect === 'body' && spec.method !== 'get') b = { raw: `{${id}` }
          if (defect === 'id') id = `missing-${id.replace(/[^a-z]/g, '')}`
          const qs = new URLSearchParams(q).toString()
          const path = API_BASE + spec.path.replace(/:id/g, encodeURIComponent(id)) + (qs ? `?${qs}` : '')
          const raw = typeof b === 'object' && b !== null && 'raw' in b ? (b as { raw: string }).raw : b === undefined ? undefined : JSON.stringify(b)
          const headers: Record<string, string> = { 'content-type': 'application/json' }
          if (tok) headers.authorization = `Bearer ${tok}`
          const res = await fetch(url + path, { method: spec.method.toUpperCase(), headers, ...(spec.method !== 'get' && raw !== undefined ? { body: raw } : {}) })
          await res.text()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          expect(res.status, `${spec.method} ${path}`).toBeGreaterThanOrEqual(400)
          expect(res.status, `${spec.method} ${path}`).toBeLessThan(500)
        }),
        { numRuns: 2000 },
      )
      await t.queue.idle()
      expect(await dumpStore(t.store)).toBe(before)
      // Not every answer is a 404: with real ids present, validation and role checks answer too.
      expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([400, 401, 403, 404]))
    } finally {
      await new Promise<void>((r) => server.close(() => r()))
    }
  }, 300_000)
})
