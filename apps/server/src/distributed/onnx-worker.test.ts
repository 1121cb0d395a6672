/**
 * Issue 37 item 4 on the distributed workers: a run over ONNX Runtime's CPU settings, created
 * through the API with a synthesized decoder (onnxModel), measured to completion by a worker
 * process over BullMQ (real Redis, PostgreSQL store) with real onnxruntime-node sessions, every
 * combination a job of that worker; then a Tier 2 session on it, its trials the worker's too.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Queue } from 'bullmq'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { defaultRegistry } from '@kerneltune/compose/node'
import { openStore, type Store } from '@kerneltune/store'
import { API_BASE, createApp } from '../app.ts'
import { connect } from './names.ts'
import { createRedisQueue, type RedisJobQueue } from './redis-queue.ts'
import { children, kill, PG, REDIS, spawnFixture } from './test-cluster.node.ts'

const missing = requireOrSkip(Boolean(REDIS), 'Redis: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })
  || requireOrSkip(Boolean(PG), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)', { runtimes: ['node'] })

const dir = mkdtempSync(join(tmpdir(), 'kt-onnx-worker-'))
const CPU = { name: 'test cpu', vendor: 'cpu', kind: 'cpu', memBwGbs: 20, fp16Tflops: 0.3, unifiedMemory: true }
const RESTRICT = { fusion_strategy: ['aggressive'], ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model', '4'], ort_execution_mode: ['sequential'], ort_inter_op_threads: ['auto'], ort_cpu_mem_arena: ['on'], ort_mem_pattern: ['on'], ort_intra_op_spinning: ['on'] }
const DEVICE = /ONNX Runtime 1\.\d+\.\d+ \(onnxruntime-node, CPU execution provider\)/

describe.skipIf(missing)('a run and a tune session over ONNX Runtime on a distributed worker (BullMQ on Redis, PostgreSQL store)', () => {
  let store: Store
  beforeAll(async () => { store = await openStore(PG!) })
  afterAll(async () => {
    for (const c of children) await kill(c)
    await store?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('should measure every combination of an ORT run on the worker process, with real sessions, and then its Tier 2 trials', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const worker = await spawnFixture('worker.fixture.ts', { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DEVICE: 'onnx worker test' })
    let queue!: RedisJobQueue
    // The dispatcher measures nothing itself: every job goes through Redis to the worker process.
    const app = createApp({ store, registry: defaultRegistry(), env: { KERNELTUNE_CACHE_DIR: join(dir, 'cache') }, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, pollMs: 100 })) })
    const { token } = await store.tokens.create('operator', 'acme', 'onnx worker test')
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.app.request(API_BASE + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      return { status: res.status, body: await res.json() as Record<string, any> }
    }
    const c = connect(REDIS!)
    const q = new Queue('combos', { connection: c, prefix })
    try {
      const created = await call('POST', '/runs', {
        engine: 'onnx-cpu', backend: 'onnxruntime', model: { name: 'replaced', paramsB: 1, quant: 'F16' }, hardware: CPU, onnxModel: { params: '2M', vocabSize: 320 },
        restrict: RESTRICT, repetitions: 2, warmups: 0, earlyStop: false, useCache: false, workload: { batch: 1, promptTokens: 8, generatedTokens: 4 },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(202)
      await app.queue.idle()
      const run = await store.runs.require(null, created.body.id)
      expect([run.status, run.error]).toEqual(['succeeded', null])
      const combos = await store.runs.combos(run.id)
      expect(combos).toHaveLength(4)
      for (const x of combos) {
        expect([x.status, x.simulated]).toEqual(['measured', false])
        for (const r of x.repetitions) expect(r.decodeTps).toBeGreaterThan(0)
      }
      // Each combination was a job the worker process completed (none measured by the dispatcher).
      const jobs = await q.getJobs(['completed'])
      expect(jobs.map((j) => (j.returnvalue as { worker?: string }).worker).sort()).toEqual(combos.map(() => worker.line.id))
      expect((run.summary as { devices?: string[] }).devices).toEqual([expect.stringMatching(DEVICE)])

      const tune = await call('POST', '/tune', { runId: run.id, budget: { trials: 3 }, strategy: 'random', seed: 5, keep: ['ort_intra_op_threads', 'ort_matmulnbits_accuracy'], repetitions: 2 })
      expect(tune.status, JSON.stringify(tune.body)).toBe(202)
      await app.queue.idle()
      const session = await store.tune.require(null, tune.body.id)
      expect(session.status).toBe('completed')
      const trials = await store.tune.trials(session.id)
      expect(trials.map((t) => t.index)).toEqual([0, 1, 2])
      for (const t of trials) {
        expect(t.outcome).toBe('ok')
        expect(t.metrics).toMatchObject({ simulated: false, device: expect.stringMatching(DEVICE), worker: worker.line.id })
      }
    } finally {
      await q.close()
      c.disconnect()
      await app.shutdown()
      await queue.close()
      await kill(worker.child)
    }
  }, 300_000)
})
