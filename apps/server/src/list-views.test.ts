import { describe, expect, it } from 'vitest'
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
    expect((await briefRes.text()).length * 3).toBeLessThan((await fullRes.text()).length)
    expect((await t.call('GET', '/api/v1/kernels/runs?view=tiny')).status).toBe(400)
    await t.queue.shutdown()
    await t.store.close()
  })
})
