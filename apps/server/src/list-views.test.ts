import { describe, expect, it } from 'vitest'
import { createRegistry, type MeasurementBackend } from '@kerneltune/core'
import { analyticalBackend } from '@kerneltune/backends'
import { measuredBy } from './routes/runs.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

const waitDone = async (t: Awaited<ReturnType<typeof testApp>>, id: string) => {
  for (let i = 0; i < 200; i++) {
    const r = await (await t.call('GET', `/api/v1/kernels/runs/${id}`)).json() as { status: string }
    if (r.status === 'succeeded') return
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error('run did not finish')
}

describe('GET /runs?view=brief', () => {
  it('lists what a page shows, a fraction of the full rows, with the same ids and totals', async () => {
    const t = await testApp()
    const run = await (await t.call('POST', '/api/v1/kernels/runs', { body: SMALL_RUN })).json() as { id: string }
    await waitDone(t, run.id)
    const fullRes = await t.call('GET', '/api/v1/kernels/runs?limit=20')
    const briefRes = await t.call('GET', '/api/v1/kernels/runs?limit=20&view=brief')
    const full = await fullRes.clone().json() as { items: Array<{ id: string; summary: unknown }>; total: number }
    const brief = await briefRes.clone().json() as { items: Array<Record<string, unknown> & { target: { engine: string; model: { name: string } } }>; total: number }
    expect(brief.total).toBe(full.total)
    expect(brief.items.map((r) => r.id)).toEqual(full.items.map((r) => r.id))
    expect(brief.items[0]!.summary).toBeUndefined()
    expect(brief.items[0]!.target.engine).toBe('vllm')
    expect(brief.items[0]!.target.model.name).toBe('tiny')
    expect(brief.items[0]!.winner).toHaveProperty('value')
    // The analytical backend predicts: the row says so, as the run's summary does.
    expect(brief.items[0]!.measuredBy).toEqual({ simulated: true, proxy: null })
    expect((await briefRes.text()).length * 3).toBeLessThan((await fullRes.text()).length)
    expect((await t.call('GET', '/api/v1/kernels/runs?view=tiny')).status).toBe(400)
    await t.queue.shutdown()
    await t.store.close()
  })
})

describe('GET /runs?since=&until=', () => {
  it('filters by creation time on the server, validated, within the caller\'s tenant', async () => {
    const t = await testApp()
    const a = await (await t.call('POST', '/api/v1/kernels/runs', { body: SMALL_RUN })).json() as { id: string; createdAt: string }
    await new Promise((r) => setTimeout(r, 5))
    const b = await (await t.call('POST', '/api/v1/kernels/runs', { body: SMALL_RUN })).json() as { id: string; createdAt: string }
    const ids = async (q: string) => ((await (await t.call('GET', `/api/v1/kernels/runs?${q}`)).json()) as { items: Array<{ id: string }> }).items.map((r) => r.id)
    expect(await ids(`view=brief&since=${encodeURIComponent(b.createdAt)}`)).toEqual([b.id])
    expect(await ids(`until=${encodeURIComponent(b.createdAt)}`)).toEqual([a.id])
    // A date is its UTC midnight; an offset is normalised to UTC before the comparison.
    const day = a.createdAt.slice(0, 10)
    const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)
    expect((await ids(`since=${day}&until=${next}`)).sort()).toEqual([a.id, b.id].sort())
    expect(await ids(`until=${day}T00:00:00%2B00:00`)).toEqual([])
    const theirs = await (await t.call('GET', `/api/v1/kernels/runs?view=brief&since=${day}`, { token: t.others.viewer })).json() as { total: number }
    expect(theirs.total).toBe(0)
    for (const bad of ['since=yesterday', 'until=2026-13-01', `since=${next}&until=${day}`]) {
      expect((await t.call('GET', `/api/v1/kernels/runs?${bad}`)).status, bad).toBe(400)
    }
    await t.queue.shutdown()
    await t.store.close()
  })
})

describe('measuredBy (what a list row says about how its numbers were made)', () => {
  it('gives the backend\'s declaration: simulated, a proxy of the engine/device, or null when unknown', () => {
    const proxy: MeasurementBackend = { name: 'wgsl', kind: 'measurement-backend', apiVersion: 1, simulated: false, proxy: { engine: true, device: true, runs: 'WGSL GEMVs' }, measure: async () => { throw new Error('not measured here') } }
    const plain: MeasurementBackend = { ...proxy, name: 'engine', proxy: { engine: false, device: false } }
    const registry = createRegistry([analyticalBackend(), proxy, plain])
    expect(measuredBy(registry, 'analytical')).toEqual({ simulated: true, proxy: null })
    expect(measuredBy(registry, 'wgsl')).toEqual({ simulated: false, proxy: { engine: true, device: true, runs: 'WGSL GEMVs' } })
    expect(measuredBy(registry, 'engine')).toEqual({ simulated: false, proxy: null })
    expect(measuredBy(registry, 'gone')).toBeNull()
  })
})

describe('GET /runs: a run whose measuring process died', () => {
  it('marks a running run interrupted once its holder\'s heartbeat is older than the lease, in both views, and not before', async () => {
    const t = await testApp()
    const run = await (await t.call('POST', '/api/v1/kernels/runs', { body: SMALL_RUN })).json() as { id: string }
    await waitDone(t, run.id)
    // As a `kerneltune sweep` holds its run: running, with a claim it refreshes every few seconds.
    await t.store.runs.setStatus(run.id, 'running')
    const rows = async (view: string) => ((await (await t.call('GET', `/api/v1/kernels/runs?limit=20${view}`)).json()) as { items: Array<{ id: string; interrupted?: boolean }> }).items.filter((r) => r.id === run.id)
    const fresh = { id: 'live', pid: 1, host: 'elsewhere', startedAt: new Date().toISOString(), heartbeatAt: new Date().toISOString() }
    expect(await t.store.runs.claim(run.id, fresh, null)).toBe(true)
    expect((await rows('&view=brief'))[0]!.interrupted).toBeUndefined()
    const silent = { ...fresh, id: 'dead', heartbeatAt: new Date(Date.now() - 61_000).toISOString() }
    expect(await t.store.runs.claim(run.id, silent, 'live')).toBe(true)
    expect((await rows('&view=brief'))[0]!.interrupted).toBe(true)
    expect((await rows(''))[0]!.interrupted).toBe(true)
    // A finished run is never marked, whatever its last holder.
    await t.store.runs.setStatus(run.id, 'succeeded')
    expect((await rows('&view=brief'))[0]!.interrupted).toBeUndefined()
    await t.queue.shutdown()
    await t.store.close()
  })
})
