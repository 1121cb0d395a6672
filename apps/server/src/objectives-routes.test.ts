/**
 * Latency objectives over HTTP (issue 25): POST /runs and POST /tune validate `slo` and `objective`
 * with the one parser (an unknown name is a 400 listing the accepted ones) and store them.
 */
import { describe, expect, it } from 'vitest'
import { API_BASE } from './app.ts'
import { ObjectivesResponse } from './responses.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

describe('objectives in the runs and tune routes', () => {
  it('should refuse unknown objectives with the accepted names, and store valid ones with the run and the session', async () => {
    const t = await testApp()
    const bad = await t.call('POST', `${API_BASE}/runs`, { body: { ...SMALL_RUN, slo: { ttft_p98_ms: 500 } } })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(await bad.json())).toMatch(/unknown latency objective 'ttft_p98_ms'; accepted: ttft_mean_ms/)
    const res = await t.call('POST', `${API_BASE}/runs`, { body: { ...SMALL_RUN, slo: { ttft_p99_ms: 500 }, objective: 'goodput' } })
    expect(res.status).toBe(202)
    const run = (await res.json()) as { id: string; target: { options: Record<string, unknown> } }
    expect(run.target.options).toMatchObject({ slo: { ttft_p99_ms: 500 }, objective: 'goodput' })
    await t.queue.idle()
    // The analytical backend measures no requests: the summary says so rather than judging.
    const judged = (await (await t.call('GET', `${API_BASE}/runs/${run.id}`)).json()) as { summary: { objectives: Record<string, unknown> } }
    expect(judged.summary.objectives).toMatchObject({ objective: 'goodput', candidates: [], pareto: [], note: expect.stringMatching(/backend analytical measured no requests/) })
    // The shape the API documents and the dashboard's run view reads, key for key.
    expect(ObjectivesResponse.strict().safeParse(judged.summary.objectives).success).toBe(true)
    const badTune = await t.call('POST', `${API_BASE}/tune`, { body: { runId: run.id, budget: { trials: 1 }, objective: 'fastest' } })
    expect(badTune.status).toBe(400)
    expect(JSON.stringify(await badTune.json())).toMatch(/unknown objective 'fastest'; accepted: goodput/)
    const tune = await t.call('POST', `${API_BASE}/tune`, { body: { runId: run.id, budget: { trials: 1 }, strategy: 'random', keep: ['attention_backend'] } })
    expect(tune.status).toBe(202)
    const session = (await (await t.call('GET', `${API_BASE}/tune/${((await tune.json()) as { id: string }).id}`)).json()) as { narrowing: Record<string, unknown> }
    // No objectives in the request: the session takes the run's.
    expect(session.narrowing).toMatchObject({ slo: { ttft_p99_ms: 500 }, objective: 'goodput' })
    await t.queue.idle()
  })
})
