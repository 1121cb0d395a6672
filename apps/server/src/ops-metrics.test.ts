import { describe, it, expect } from 'vitest'
import { API_BASE } from './app.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

const scrape = async (t: Awaited<ReturnType<typeof testApp>>) => (await t.app.request('/metrics')).text()
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('operations metrics', () => {
  it('should count HTTP answers by method, route pattern and status, errors included', async () => {
    const t = await testApp()
    await t.call('GET', `${API_BASE}/runs/does-not-exist`)
    await t.call('GET', `${API_BASE}/runs`, { token: null })
    const text = await scrape(t)
    expect(sample(text, 'kerneltune_l1_http_requests_total{method="GET",route="/api/v1/kernels/runs/:id",status="404"}')).toBe(1)
    expect(sample(text, 'kerneltune_l1_http_requests_total{method="GET",route="/api/v1/kernels/runs",status="401"}')).toBe(1)
  })

  it('should record landing time to first screen from POST /metrics/client and refuse bad values', async () => {
    const t = await testApp()
    const ok = await t.call('POST', `${API_BASE}/metrics/client`, { token: t.tokens.viewer, body: { metric: 'landing_ttfs_seconds', value: 0.8 } })
    expect(ok.status).toBe(202)
    for (const body of [{ metric: 'landing_ttfs_seconds', value: -1 }, { metric: 'other', value: 1 }, { metric: 'landing_ttfs_seconds', value: 1, extra: 1 }]) {
      expect((await t.call('POST', `${API_BASE}/metrics/client`, { token: t.tokens.viewer, body })).status).toBe(400)
    }
    expect((await t.call('POST', `${API_BASE}/metrics/client`, { token: null, body: { metric: 'landing_ttfs_seconds', value: 1 } })).status).toBe(401)
    const text = await scrape(t)
    expect(sample(text, 'kerneltune_l1_landing_ttfs_seconds_count')).toBe(1)
    expect(sample(text, 'kerneltune_l1_landing_ttfs_seconds_bucket{le="1"}')).toBe(1)
    expect(sample(text, 'kerneltune_l1_landing_ttfs_seconds_bucket{le="0.5"}')).toBe(0)
  })

  it('should report a run stuck in running by the age of its last progress, and the queue', async () => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/runs`, { body: SMALL_RUN })
    const { id } = (await res.json()) as { id: string }
    await t.queue.idle()
    let text = await scrape(t)
    expect(sample(text, 'kerneltune_l1_run_stalled_seconds')).toBe(0)
    expect(sample(text, 'kerneltune_l1_job_queue_jobs{state="waiting"}')).toBe(0)
    // A run the store still calls running, whose last progress was an hour ago: what a wedged
    // worker leaves behind.
    const hourAgo = new Date(Date.now() - 3600_000).toISOString()
    await t.store.driver.run('UPDATE kernel_runs SET status = ?, updated_at = ? WHERE id = ?', ['running', hourAgo, id])
    text = await scrape(t)
    expect(sample(text, 'kerneltune_l1_runs_active{status="running"}')).toBe(1)
    expect(sample(text, 'kerneltune_l1_run_stalled_seconds')).toBeGreaterThanOrEqual(3600)
    expect(sample(text, 'kerneltune_l1_run_stalled_seconds')).toBeLessThan(3600 + 600)
  })

  it('should show the budget share a running tune session has used, and drop it when it stops', async () => {
    const t = await testApp()
    const run = (await (await t.call('POST', `${API_BASE}/runs`, { body: SMALL_RUN })).json()) as { id: string }
    await t.queue.idle()
    const s = await t.store.tune.create({ tenant: 'acme', runId: run.id, strategy: 'random', budget: { trials: 8, minutes: 10 }, narrowing: {}, optimizerState: null })
    await t.store.driver.run('UPDATE kernel_tune_sessions SET trials_done = ?, elapsed_ms = ? WHERE id = ?', [2, 150_000, s.id])
    let text = await scrape(t)
    expect(sample(text, `kerneltune_l1_tune_budget_used_ratio{session="${s.id}",kind="trials"}`)).toBe(0.25)
    expect(sample(text, `kerneltune_l1_tune_budget_used_ratio{session="${s.id}",kind="minutes"}`)).toBe(0.25)
    await t.store.tune.setStatus(s.id, 'paused')
    text = await scrape(t)
    expect(text).not.toContain(`session="${s.id}"`)
  })
})
