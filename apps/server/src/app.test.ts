import { describe, it, expect } from 'vitest'
import { API_BASE, ROUTES } from './app.ts'
import { roleAllows } from './http.ts'
import { ROLES, SMALL_RUN, testApp } from './test-helpers.ts'

const pathOf = (p: string, id = 'nonexistent-id') => API_BASE + p.replace(/:id/g, id)

describe('server auth', () => {
  it('should answer 401 without a token and 403 for a role that may not call the endpoint, for every endpoint', async () => {
    const t = await testApp()
    for (const { spec } of ROUTES) {
      const method = spec.method.toUpperCase()
      expect((await t.call(method, pathOf(spec.path), { token: null })).status, `${method} ${spec.path}`).toBe(401)
      for (const role of ROLES) {
        const res = await t.call(method, pathOf(spec.path), { token: t.tokens[role], body: {} })
        if (roleAllows(role, spec.role)) expect([401, 403], `${role} ${method} ${spec.path}`).not.toContain(res.status)
        else expect(res.status, `${role} ${method} ${spec.path}`).toBe(403)
      }
    }
  })

  it('should keep tenants apart', async () => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/runs`, { body: SMALL_RUN })
    expect(res.status).toBe(202)
    const run = (await res.json()) as { id: string }
    expect((await t.call('GET', `${API_BASE}/runs/${run.id}`, { token: t.other })).status).toBe(404)
    expect(((await (await t.call('GET', `${API_BASE}/runs`, { token: t.other })).json()) as { total: number }).total).toBe(0)
    expect((await t.call('GET', `${API_BASE}/runs/${run.id}`)).status).toBe(200)
    await t.queue.idle()
  })

  it('should turn the API off with a clear 503 when ENABLE_KERNEL_TUNING=false', async () => {
    const t = await testApp({ ENABLE_KERNEL_TUNING: 'false' })
    const res = await t.call('GET', `${API_BASE}/runs`)
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error: { code: string; message: string } }).error.message).toMatch(/ENABLE_KERNEL_TUNING/)
  })
})

describe('server API', () => {
  it('should list every problem of a bad body in a 400', async () => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/runs`, { body: { engine: 7, repetitions: 0 } })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: string; problems: string[] } }
    expect(body.error.code).toBe('INVALID_INPUT')
    expect(body.error.problems.length).toBeGreaterThanOrEqual(3)
  })

  it('should run, tune and count in metrics through the queue', async () => {
    const t = await testApp()
    const run = (await (await t.call('POST', `${API_BASE}/runs`, { body: { ...SMALL_RUN, restrict: { ...SMALL_RUN.restrict, matmul_path: ['cublas', 'cutlass'] } } })).json()) as { id: string }
    await t.queue.idle()
    const detail = (await (await t.call('GET', `${API_BASE}/runs/${run.id}`)).json()) as { status: string }
    expect(detail.status).toBe('succeeded')
    const events = await (await t.call('GET', `${API_BASE}/runs/${run.id}/events`)).text()
    expect(events).toMatch(/event: run.finished/)
    const tune = await t.call('POST', `${API_BASE}/tune`, { body: { runId: run.id, budget: { trials: 3 }, strategy: 'random' } })
    expect(tune.status).toBe(202)
    const session = (await tune.json()) as { id: string }
    await t.queue.idle()
    const status = (await (await t.call('GET', `${API_BASE}/tune/${session.id}`)).json()) as { status: string; trials: unknown[]; best: unknown }
    expect(status.trials.length).toBeGreaterThan(0)
    expect(status.best).not.toBeNull()
    const metrics = await (await t.app.request('/metrics')).text()
    expect(metrics).toMatch(/kerneltune_l1_runs_total\{mode="quick",status="succeeded"\} 1/)
    expect(metrics).toMatch(/kerneltune_l1_tune_trials_total\{outcome="ok"\} [1-9]/)
    expect(metrics).toMatch(/kerneltune_l1_cache_misses_total [1-9]/)
    expect(metrics).toMatch(/kerneltune_l1_registry_entries\{status="proposed"\} 0/)
  })

  it('should serve an OpenAPI document with every endpoint', async () => {
    const t = await testApp()
    const doc = (await (await t.app.request('/openapi.json')).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> }
    expect(doc.openapi).toBe('3.1.0')
    for (const { spec } of ROUTES) expect(doc.paths[API_BASE + spec.path.replace(/:id/g, '{id}')]?.[spec.method], spec.path).toBeDefined()
  })
})
