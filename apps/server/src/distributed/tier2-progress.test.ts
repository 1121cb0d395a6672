/**
 * The distributed queue's Tier 2 and progress guarantees on a real Redis (BullMQ) and PostgreSQL:
 * a tune session whose trials run on worker processes survives a worker SIGKILL and a server
 * SIGKILL + restart (resumed as without Redis, every trial recorded once), and a client following a
 * run's (or a session's) SSE stream gets each combination's (trial's) progress while remote
 * workers measure it.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Queue } from 'bullmq'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { buildCatalog } from '@kerneltune/catalog'
import { openStore, type Store } from '@kerneltune/store'
import { createRun, startTune } from '@kerneltune/tuner'
import { createApp } from '../app.ts'
import { defaultRegistry } from '@kerneltune/compose/node'
import { inProcess } from '../in-process.ts'
import { createRedisQueue, type RedisJobQueue } from './redis-queue.ts'
import { startWorker } from './worker.ts'
import { connect } from './names.ts'
import { children, expectExactlyOnce, kill, PG, REDIS, RUN, spawnFixture, until } from './test-cluster.node.ts'

const missing = requireOrSkip(Boolean(REDIS), 'Redis: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })
  || requireOrSkip(Boolean(PG), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)', { runtimes: ['node'] })

/** Reads an SSE body into its events until the `last` event (or the stream ends). */
async function readEvents(body: ReadableStream<Uint8Array>, last = 'run.finished'): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const out: { event: string; data: Record<string, unknown> }[] = []
  const reader = body.getReader()
  const text = new TextDecoder()
  let buf = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return out
    buf += text.decode(value, { stream: true })
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const block = buf.slice(0, i)
      buf = buf.slice(i + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message'
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')
      out.push({ event, data: data ? (JSON.parse(data) as Record<string, unknown>) : {} })
      if (event === last) {
        await reader.cancel()
        return out
      }
    }
  }
}

describe.skipIf(missing)('distributed Tier 2 and progress (BullMQ on Redis, PostgreSQL store)', () => {
  let store: Store
  beforeAll(async () => { store = await openStore(PG!) })
  afterAll(async () => {
    for (const c of children) await kill(c)
    await store?.close()
  })

  it('should complete a tune session, every trial once, when a worker is SIGKILLed and the server is SIGKILLed, restarted and the session resumed', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const env = { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DELAY_MS: '200' }
    const { token } = await store.tokens.create('operator', 'acme', 'distributed tier 2 test')
    const api = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/api/v1/kernels${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    const workers = await Promise.all([0, 1].map(() => spawnFixture('worker.fixture.ts', env)))
    const registry = defaultRegistry()
    // The Tier 1 run the session is seeded from, swept by the workers through the first server.
    const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] } }, { catalog: buildCatalog(registry), registry, tenant: 'acme' })
    let server = await spawnFixture('server.fixture.ts', env)
    const c = connect(REDIS!)
    const q = new Queue('combos', { connection: c, prefix })
    try {
      await until(async () => (await store.runs.require(null, run.id)).status === 'succeeded')
      const started = await api(server.line.url!, 'POST', '/tune', { runId: run.id, budget: { trials: 8 }, strategy: 'bo', keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 2 })
      expect(started.status).toBe(202)
      const id = started.body.id as string
      const done = async () => (await store.tune.require(null, id)).trialsDone
      // Batch one (four trial jobs, 3 x 200 ms each) is out and both workers measure: lose one.
      await until(async () => ((await q.getJobCounts('active')).active ?? 0) >= 2, 60)
      await kill(workers[0]!.child)
      // The stalled check gives its trial to the survivor; batch two goes out; lose the server mid-batch.
      await until(async () => (await done()) >= 4 && ((await q.getJobCounts('active')).active ?? 0) >= 1, 90)
      const before = await done()
      expect(before).toBeGreaterThanOrEqual(4)
      expect(before).toBeLessThan(8)
      await kill(server.child)
      server = await spawnFixture('server.fixture.ts', env)
      // Resumed as without Redis: the restarted server pauses the interrupted session, a request resumes it.
      expect((await store.tune.require(null, id)).status).toBe('paused')
      const resumed = await api(server.line.url!, 'POST', `/tune/${id}/resume`)
      expect(resumed.status).toBe(202)
      expect(resumed.body).toMatchObject({ resumed: true })
      await until(async () => (await store.tune.require(null, id)).status === 'completed', 120)
      const session = await store.tune.require(null, id)
      expect(session.status).toBe('completed')
      expect(session.trialsDone).toBe(8)
      const trials = await store.tune.trials(id)
      expect(trials.map((t) => t.index)).toEqual([...Array(8).keys()])
      expect(trials.every((t) => t.outcome === 'ok')).toBe(true)
      const rows = await store.driver.query('SELECT idx, COUNT(*) AS n FROM kernel_tune_trials WHERE session_id = ? GROUP BY idx', [id])
      expect(rows.map((r) => Number(r.n))).toEqual(trials.map(() => 1))
      // One trial job per trial: the resumed session asked the interrupted batch again and found its
      // jobs (same ids), so nothing was measured twice; the victim's job came back through the stalled check.
      const jobs = (await q.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed'])).filter((j) => j.name === 'trial' && (j.data as { sessionId?: string }).sessionId === id)
      expect(jobs.map((j) => (j.data as { index: number }).index).toSorted((a, b) => a - b)).toEqual([...Array(8).keys()])
      expect(jobs.some((j) => j.stalledCounter + j.attemptsMade > 1)).toBe(true)
    } finally {
      await q.close()
      c.disconnect()
      await kill(server.child)
      for (const w of workers) await kill(w.child)
    }
  }, 300_000)

  it('should stream each combination\'s progress over SSE while remote workers measure, woken by queue events rather than polling', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const registry = defaultRegistry({ analytical: { delayMs: 20 } })
    const workers = await Promise.all([0, 1].map(() => startWorker({ redisUrl: REDIS!, store, registry, prefix, device: 'sse test device' })))
    let queue!: RedisJobQueue
    // A ten-minute fallback poll: the run can only finish within the test's time if BullMQ's
    // 'completed' events wake the dispatcher.
    const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, pollMs: 600_000 })) })
    try {
      const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] } }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      const res = await app.app.request(`/api/v1/kernels/runs/${run.id}/events`, {}, inProcess({ role: 'viewer', tenant: 'acme', tokenId: 'test' }))
      expect(res.status).toBe(200)
      const events = readEvents(res.body!)
      app.queue.enqueue('run', run.id)
      const got = await events
      const combos = await expectExactlyOnce(store, run.id)
      const measured = got.filter((e) => e.event === 'combo.measured').map((e) => e.data.index as number)
      expect(measured.toSorted((a, b) => a - b)).toEqual(combos.map((x) => x.index))
      expect(got.filter((e) => e.event === 'progress').map((e) => e.data.done)).toEqual(combos.map((_, i) => i + 1))
      expect(got.at(-1)).toMatchObject({ event: 'run.finished', data: { status: 'succeeded' } })
      // Prometheus counts the remote measurements as it counts local ones.
      expect(await app.metrics.registry.metrics()).toMatch(new RegExp(`kerneltune_l1_combo_evaluations_total ${combos.length}\\b`))
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await w.close()
    }
  }, 60_000)

  it('should stream every trial of a tune session over SSE while its q-batches run on remote workers', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const registry = defaultRegistry({ analytical: { delayMs: 20 } })
    const workers = await Promise.all([0, 1].map(() => startWorker({ redisUrl: REDIS!, store, registry, prefix, device: 'sse test device' })))
    let queue!: RedisJobQueue
    const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, tuneBatch: 4 })) })
    try {
      const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] } }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      await app.queue.idle()
      const session = await startTune(store, { runId: run.id, budget: { trials: 8 }, strategy: 'bo', keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 2 }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      const res = await app.app.request(`/api/v1/kernels/tune/${session.id}/events`, {}, inProcess({ role: 'viewer', tenant: 'acme', tokenId: 'test' }))
      expect(res.status).toBe(200)
      const events = readEvents(res.body!, 'tune.finished')
      app.queue.enqueue('tune', session.id)
      const got = await events
      const trials = await store.tune.trials(session.id)
      expect(trials).toHaveLength(8)
      // One event per stored trial, in order, with the value the remote worker measured.
      expect(got.filter((e) => e.event === 'trial').map((e) => [e.data.index, e.data.value])).toEqual(trials.map((t) => [t.index, t.value]))
      expect(trials.every((t) => workers.some((w) => w.id === (t.metrics as { worker?: string }).worker))).toBe(true)
      expect(got.at(-1)).toMatchObject({ event: 'tune.finished', data: { status: 'completed' } })
      expect(await app.metrics.registry.metrics()).toMatch(/kerneltune_l1_tune_trials_total\{outcome="ok"\} 8\b/)
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await w.close()
    }
  }, 60_000)
})
