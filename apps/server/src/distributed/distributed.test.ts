/**
 * Sweeps across worker processes on a real Redis (BullMQ) and a real PostgreSQL store: a worker
 * SIGKILLed mid-measurement, the server SIGKILLed and restarted mid-run, and device routing. Each
 * test uses its own BullMQ prefix, so tests never take each other's jobs.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { openStore, type Store } from '@kerneltune/store'
import { createRun, startTune } from '@kerneltune/tuner'
import { createApp, type App } from '../app.ts'
import { defaultRegistry } from '@kerneltune/compose/node'
import { createRedisQueue, type RedisJobQueue } from './redis-queue.ts'
import { startWorker } from './worker.ts'
import { comboJobId, connect } from './names.ts'
import { children, expectExactlyOnce, kill, PG, progress, REDIS, RUN, spawnFixture, until } from './test-cluster.node.ts'
import { buildCatalog } from '@kerneltune/catalog'
import { Queue } from 'bullmq'

const missing = requireOrSkip(Boolean(REDIS), 'Redis: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })
  || requireOrSkip(Boolean(PG), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)', { runtimes: ['node'] })

describe.skipIf(missing)('distributed sweeps (BullMQ on Redis, PostgreSQL store)', () => {
  let store: Store
  beforeAll(async () => { store = await openStore(PG!) })
  afterAll(async () => {
    for (const c of children) await kill(c)
    await store?.close()
  })

  async function dispatcher(prefix: string): Promise<{ app: App; queue: RedisJobQueue }> {
    let queue!: RedisJobQueue
    const app = createApp({ store, registry: defaultRegistry(), queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, pollMs: 100 })) })
    return { app, queue }
  }

  it('should finish a sweep with every combination measured exactly once when one of three workers is SIGKILLed mid-measurement', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const env = { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DELAY_MS: '250' }
    const workers = await Promise.all([0, 1, 2].map(() => spawnFixture('worker.fixture.ts', env)))
    const { app, queue } = await dispatcher(prefix)
    try {
      const run = await createRun(store, RUN, { catalog: app.deps.catalog, registry: app.deps.registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      // All three are busy once a few results are in: the victim is mid-measurement.
      await until(async () => (await progress(store, run.id)) >= 3)
      await kill(workers[0]!.child)
      await app.queue.idle()
      const combos = await expectExactlyOnce(store, run.id)
      expect(combos.length).toBeGreaterThanOrEqual(8)
      // The killed worker's job came back through BullMQ's stalled check, and another worker finished it.
      const metrics = await app.metrics.registry.metrics()
      expect(Number(/kerneltune_l1_queue_stalled_jobs_total (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
      expect(metrics).toMatch(new RegExp(`kerneltune_l1_combo_evaluations_total ${combos.length}\\b`))
      // Some job was delivered more than once, yet stored one result (expectExactlyOnce above).
      const conn = connect(REDIS!)
      const q = new Queue('combos', { connection: conn, prefix })
      const jobs = await Promise.all(combos.map((c) => q.getJob(comboJobId(run.id, c.index))))
      await q.close()
      conn.disconnect()
      expect(jobs.some((j) => (j?.stalledCounter ?? 0) + (j?.attemptsMade ?? 0) > 1)).toBe(true)
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await kill(w.child)
    }
  }, 240_000)

  it('should finish a sweep exactly once when the server is SIGKILLed mid-run and restarted', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const env = { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DELAY_MS: '250' }
    const workers = await Promise.all([0, 1, 2].map(() => spawnFixture('worker.fixture.ts', env)))
    const registry = defaultRegistry()
    // Created queued in the store; the server picks queued and running runs up when it starts.
    const run = await createRun(store, RUN, { catalog: buildCatalog(registry), registry, tenant: 'acme' })
    let server = await spawnFixture('server.fixture.ts', env)
    try {
      await until(async () => (await progress(store, run.id)) >= 3)
      const mid = await store.runs.require(null, run.id)
      expect(mid.progress.done).toBeLessThan(mid.progress.total)
      await kill(server.child)
      server = await spawnFixture('server.fixture.ts', env)
      await until(async () => (await store.runs.require(null, run.id)).status === 'succeeded')
      await expectExactlyOnce(store, run.id)
    } finally {
      await kill(server.child)
      for (const w of workers) await kill(w.child)
    }
  }, 240_000)

  it('should keep the queued jobs across a Redis restart with its append-only file, and finish the run from them', async () => {
    // A Redis of this test's own (the shared one runs without persistence), restarted in place.
    const dir = mkdtempSync(join(tmpdir(), 'kt-redis-aof-'))
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port
        srv.close(() => resolve(p))
      })
    })
    const url = `redis://127.0.0.1:${port}`
    const startRedis = async () => {
      const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], { stdio: 'ignore' })
      children.push(child)
      const c = connect(url).on('error', () => { /* refused until it listens */ })
      await until(async () => (await c.ping().catch(() => '')) === 'PONG', 30)
      c.disconnect()
      return child
    }
    let redis = await startRedis()
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    let queue!: RedisJobQueue
    const app = createApp({ store, registry: defaultRegistry(), queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: url, prefix, pollMs: 100 })) })
    try {
      // Only the baseline is dispatched while no worker runs: one waiting job.
      const run = await createRun(store, RUN, { catalog: app.deps.catalog, registry: app.deps.registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      const c = connect(url)
      const q = new Queue('combos', { connection: c, prefix })
      await until(async () => (await q.getJobCounts('waiting')).waiting === 1, 30)
      await app.shutdown()
      await queue.close()
      await c.quit().catch(() => {})
      redis.kill('SIGTERM')
      await new Promise((r) => redis.once('exit', r))
      redis = await startRedis()
      const c2 = connect(url)
      const q2 = new Queue('combos', { connection: c2, prefix })
      expect((await q2.getJob(comboJobId(run.id, 0)))?.data).toEqual({ runId: run.id, index: 0 })
      expect((await q2.getJobCounts('waiting')).waiting).toBe(1)
      // A server and a worker started on the restarted Redis finish the run from the restored job
      // (the same job, queued before the restart, not one enqueued again).
      const queuedAt = (await q2.getJob(comboJobId(run.id, 0)))!.timestamp
      const registry = defaultRegistry()
      const worker = await startWorker({ redisUrl: url, store, registry, prefix, device: 'aof test device' })
      let queue2!: RedisJobQueue
      const app2 = createApp({ store, registry, queueFactory: (d) => (queue2 = createRedisQueue(d, { redisUrl: url, prefix })) })
      try {
        app2.queue.enqueue('run', run.id)
        await app2.queue.idle()
        await expectExactlyOnce(store, run.id)
        const job = await q2.getJob(comboJobId(run.id, 0))
        expect(job?.timestamp).toBe(queuedAt)
        expect(job?.finishedOn).toBeGreaterThan(queuedAt)
      } finally {
        await app2.shutdown()
        await queue2.close()
        await worker.close()
      }
      await q2.close()
      c2.disconnect()
    } finally {
      redis.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('should measure a tune session\'s q-batches as parallel trial jobs on several workers', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const registry = defaultRegistry({ analytical: { delayMs: 60 } })
    const workers = await Promise.all([0, 1].map(() => startWorker({ redisUrl: REDIS!, store, registry, prefix, device: 'tier2 test device' })))
    let queue!: RedisJobQueue
    const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, pollMs: 100, tuneBatch: 4 })) })
    try {
      const run = await createRun(store, { ...RUN, restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'] }, maxCombos: 5000 }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      await app.queue.idle()
      const session = await startTune(store, { runId: run.id, budget: { trials: 8 }, strategy: 'bo', keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 2 }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      app.queue.enqueue('tune', session.id)
      await app.queue.idle()
      expect((await store.tune.require(null, session.id)).status).toBe('completed')
      const trials = await store.tune.trials(session.id)
      expect(trials.map((t) => t.index)).toEqual([...Array(8).keys()])
      // Two batches of four, spread over both workers.
      const by = new Set(trials.map((t) => (t.metrics as { worker?: string }).worker))
      expect(by).toEqual(new Set(workers.map((w) => w.id)))
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await w.close()
    }
  }, 60_000)

  it('should measure an interleaved run as one job on one worker, every round on its device, and name that worker', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const registry = defaultRegistry({ analytical: { delayMs: 5 } })
    const workers = await Promise.all(['device A', 'device B'].map((device) => startWorker({ redisUrl: REDIS!, store, registry, prefix, device })))
    let queue!: RedisJobQueue
    const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, pollMs: 100 })) })
    try {
      const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] }, design: 'interleaved', rounds: 3 }, { catalog: app.deps.catalog, registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      await app.queue.idle()
      const done = await store.runs.require(null, run.id)
      expect(done.status).toBe('succeeded')
      const x = (done.summary as { experiment: { design: string; rounds: number; worker: string } }).experiment
      expect(x).toMatchObject({ design: 'interleaved', rounds: 3 })
      expect(workers.map((w) => w.id)).toContain(x.worker)
      // One job for the whole run, not one per combination.
      const c = connect(REDIS!)
      const q = new Queue('combos', { connection: c, prefix })
      const jobs = await q.getJobs(['completed'])
      await q.close()
      c.disconnect()
      expect(jobs.map((j) => j.name)).toEqual(['run'])
      expect(jobs[0]!.returnvalue).toMatchObject({ outcome: 'succeeded', worker: x.worker })
      for (const combo of await store.runs.combos(run.id)) expect(combo.repetitions).toHaveLength(3)
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await w.close()
    }
  }, 60_000)

  it('should complete a tune session whose worker is SIGKILLed mid-batch, every trial once', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const env = { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DELAY_MS: '200' }
    const workers = await Promise.all([0, 1].map(() => spawnFixture('worker.fixture.ts', env)))
    const { app, queue } = await dispatcher(prefix)
    try {
      const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] } }, { catalog: app.deps.catalog, registry: app.deps.registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      await app.queue.idle()
      const session = await startTune(store, { runId: run.id, budget: { trials: 8 }, strategy: 'bo', keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 2 }, { catalog: app.deps.catalog, registry: app.deps.registry, tenant: 'acme' })
      app.queue.enqueue('tune', session.id)
      // The first batch is out and both workers are measuring (each trial takes 3 x 200 ms).
      const c = connect(REDIS!)
      const q = new Queue('combos', { connection: c, prefix })
      await until(async () => ((await q.getJobCounts('active')).active ?? 0) >= 2, 60)
      await kill(workers[0]!.child)
      await app.queue.idle()
      await q.close()
      c.disconnect()
      expect((await store.tune.require(null, session.id)).status).toBe('completed')
      const trials = await store.tune.trials(session.id)
      expect(trials.map((t) => t.index)).toEqual([...Array(8).keys()])
      expect(trials.every((t) => t.outcome === 'ok')).toBe(true)
      // The victim's trial came back through the stalled check and was measured by the other worker.
      const metrics = await app.metrics.registry.metrics()
      expect(Number(/kerneltune_l1_queue_stalled_jobs_total (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
    } finally {
      await app.shutdown()
      await queue.close()
      for (const w of workers) await kill(w.child)
    }
  }, 240_000)

  it('should measure a run that requires a device only on workers that announce it', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const registry = defaultRegistry({ analytical: { delayMs: 5 } })
    const h100 = await startWorker({ redisUrl: REDIS!, store, registry, prefix, device: 'NVIDIA H100 80GB HBM3' })
    const other = await startWorker({ redisUrl: REDIS!, store, registry, prefix, device: 'NVIDIA A100-SXM4-80GB', concurrency: 4 })
    const { app, queue } = await dispatcher(prefix)
    try {
      const run = await createRun(store, { ...RUN, restrict: { ...RUN.restrict, cuda_graph: ['per-shape'] }, requireDevice: 'NVIDIA H100 80GB HBM3' }, { catalog: app.deps.catalog, registry: app.deps.registry, tenant: 'acme' })
      app.queue.enqueue('run', run.id)
      await app.queue.idle()
      const combos = await expectExactlyOnce(store, run.id)
      const conn = connect(REDIS!)
      const q = new Queue(h100.queues[1]!, { connection: conn, prefix })
      const by = await Promise.all(combos.map(async (c) => (await q.getJob(comboJobId(run.id, c.index)))?.returnvalue.worker))
      await q.close()
      conn.disconnect()
      expect(by).toEqual(combos.map(() => h100.id))
      const metrics = await app.metrics.registry.metrics()
      expect(metrics).toMatch(/kerneltune_l1_active_workers 2\b/)
    } finally {
      await app.shutdown()
      await queue.close()
      await h100.close()
      await other.close()
    }
  }, 30_000)
})
