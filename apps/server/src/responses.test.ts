/**
 * The response schemas (responses.ts) against what the routes really send: each documented
 * response of a run, its tune session, a deployment and a registry entry parses, and parsing drops
 * nothing (a field the server sends that its schema lacks would be missing from the browser's
 * generated types).
 */
import { formatIssues } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { API_BASE, ROUTES } from './app.ts'
import { HARDWARE, SMALL_RUN, testApp } from './test-helpers.ts'

describe('response schemas', () => {
  it('should describe every documented response of a run, a tune session, a deployment, the registry and the API tokens exactly', async () => {
    const t = await testApp()
    const checked = new Set<string>()
    const call = async (method: 'get' | 'post' | 'delete', path: string, concrete: string, body?: unknown) => {
      const spec = ROUTES.find((r) => r.spec.method === method && r.spec.path === path)!.spec
      const res = await t.call(method.toUpperCase(), API_BASE + concrete, body === undefined ? {} : { body })
      const json = await res.json() as unknown
      expect(res.ok, `${method} ${concrete}: ${JSON.stringify(json)}`).toBe(true)
      const parsed = spec.response!.safeParse(json)
      expect(parsed.success, `${method} ${path}: ${parsed.success ? '' : formatIssues(parsed.error.issues).join('; ')}`).toBe(true)
      // Round-tripped through JSON: the schema's output for the response is the response itself.
      expect(JSON.parse(JSON.stringify(parsed.data)), `${method} ${path}: the schema drops or changes a field`).toEqual(json)
      checked.add(`${method} ${path}`)
      return json as Record<string, any>
    }
    const run = await call('post', '/runs', '/runs', { ...SMALL_RUN, restrict: { ...SMALL_RUN.restrict, matmul_path: ['cublas', 'cutlass'] } })
    await t.queue.idle()
    await call('get', '/runs', '/runs')
    await call('get', '/runs', '/runs?view=brief')
    const detail = await call('get', '/runs/:id', `/runs/${run.id}`)
    expect(detail.summary.winner).not.toBeNull()
    const combos = await call('get', '/runs/:id/combos', `/runs/${run.id}/combos`)
    // An interleaved run's summary carries the design's result (rounds, the A/A check, replicate variances): the dashboard reads it.
    const interleaved = await call('post', '/runs', '/runs', { ...SMALL_RUN, design: 'interleaved', rounds: 3 })
    await t.queue.idle()
    expect((await call('get', '/runs/:id', `/runs/${interleaved.id}`)).summary.experiment).toMatchObject({ design: 'interleaved', rounds: 3, aa: { declaredWinner: false } })
    expect(combos.items.some((c: { comparison: unknown }) => c.comparison !== null)).toBe(true)
    const dep = await call('post', '/deployments', '/deployments', { name: 'prod', engine: 'vllm', engineVersion: detail.target.engineVersion })
    await call('post', '/runs/:id/apply', `/runs/${run.id}/apply`, { force: true })
    await call('post', '/runs/:id/apply', `/runs/${run.id}/apply`, { force: true, deploymentId: dep.id })
    await call('get', '/deployments-recent', '/deployments-recent')
    await call('get', '/deployments/:id/current-combo', `/deployments/${dep.id}/current-combo`)
    await call('get', '/deployments/:id/drift', `/deployments/${dep.id}/drift`)
    expect(await call('get', '/deployments/:id/gateway', `/deployments/${dep.id}/gateway`)).toMatchObject({ gateway: null, arms: [], decisionCount: 0 })
    await t.store.deployments.recordGateway(null, dep.id, {
      gateway: { policy: 'thompson', state: 'running' }, arms: [{ arm: 'defaults', combo: {}, stats: { requests: 1, share: 1 } }],
      decisions: [{ seq: 1, at: new Date().toISOString(), arm: 'defaults', reason: 'policy', ok: true, met: true, reward: 0.8, ttftMs: 10, tpotMs: null }],
    })
    expect(await call('get', '/deployments/:id/gateway', `/deployments/${dep.id}/gateway?decisions=5`)).toMatchObject({ gateway: { policy: 'thompson' }, arms: [{ arm: 'defaults' }], decisionCount: 1 })
    await call('post', '/runs/:id/cancel', `/runs/${run.id}/cancel`, {})
    const session = await call('post', '/tune', '/tune', { runId: run.id, budget: { trials: 3 }, strategy: 'random' })
    await t.queue.idle()
    await call('get', '/tune/:id', `/tune/${session.id}`)
    await call('post', '/tune/:id/cancel', `/tune/${session.id}/cancel`, {})
    const entry = await t.store.registry.submit({ tenant: 'acme', actor: 'someone-else', name: 'k', kernelFamily: 'gemm', provider: 'p', source: 'kernel void k() {}' })
    await call('get', '/registry', '/registry')
    await call('get', '/registry/:id/audit', `/registry/${entry.id}/audit`)
    await call('post', '/registry', '/registry', { name: 'k2', kernelFamily: 'gemm', provider: 'p', source: 'kernel void k2() {}', metadata: { tile: 64 } })
    expect(await call('post', '/registry/:id/approve', `/registry/${entry.id}/approve`, { reason: 'reviewed' })).toMatchObject({ status: 'approved' })
    expect(await call('post', '/registry/:id/deprecate', `/registry/${entry.id}/deprecate`, { reason: 'unsafe' })).toMatchObject({ status: 'deprecated' })
    const minted = await call('post', '/tokens', '/tokens', { role: 'viewer', label: 'ci', expiresIn: '30d' })
    expect(minted.token).toEqual(expect.any(String))
    await call('get', '/tokens', '/tokens')
    await call('get', '/tokens/audit', `/tokens/audit?tokenId=${minted.id}`)
    expect(await call('delete', '/tokens/:id', `/tokens/${minted.id}`, { reason: 'done' })).toMatchObject({ status: 'revoked' })
    await call('get', '/catalog/preview', `/catalog/preview?engine=vllm&hardware=${encodeURIComponent(JSON.stringify(HARDWARE))}`)
    await call('get', '/options', '/options')
    // Resuming needs a paused or failed session (robustness.test.ts makes one); the rest are all here.
    const documented = ROUTES.filter((r) => r.spec.response).map((r) => `${r.spec.method} ${r.spec.path}`)
    expect(documented.filter((r) => !checked.has(r))).toEqual(['post /tune/:id/resume'])
  })
})
