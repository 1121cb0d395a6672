/**
 * Issue 25: a Tier 2 session over llama-server's own settings (slots, continuous batching),
 * valued by goodput under latency objectives, run by a distributed worker (BullMQ on Redis, a
 * PostgreSQL store) with the real llama-server on a synthetic GGUF of about 1 MB. The server
 * process is SIGKILLed mid-session and started again: the session resumes and every trial is
 * stored exactly once, each labelled ok (meets the objectives), infeasible (ran, missed one) or
 * failed (did not run), with the best the best feasible trial.
 */
import { randomUUID } from 'node:crypto'
import process from 'node:process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Queue } from 'bullmq'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { buildCatalog } from '@kerneltune/catalog'
import { defaultRegistry } from '@kerneltune/compose/node'
import { LLAMACPP_DIMENSIONS, LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { openStore, type Store } from '@kerneltune/store'
import { createRun, type RunSummary } from '@kerneltune/tuner'
import { z } from 'zod'
import { ObjectivesResponse } from '../responses.ts'
import { connect } from './names.ts'
import { children, kill, PG, REDIS, spawnFixture, until } from './test-cluster.node.ts'
import { MODEL } from '../test-helpers.ts'

const missing = requireOrSkip(Boolean(REDIS), 'Redis: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })
  || requireOrSkip(Boolean(PG), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)', { runtimes: ['node'] })
  || requireOrSkip(Boolean(findLlamaServer(LLAMACPP_VERSION)), `llama-server: no binary; ${BUILD_HINT}`, { runtimes: ['node'] })

const dir = mkdtempSync(join(tmpdir(), 'kt-tier2-server-'))
const model = join(dir, 'tiny.gguf')
/** Objectives a tiny model meets on an idle machine and may miss on a loaded one: the test checks the labels agree with the figures, not which way they went. */
const SLO = { ttft_p99_ms: 2000, tpot_p99_ms: 200 }

describe.skipIf(missing)('a Tier 2 session over llama-server settings with objectives, on a worker, across a server restart', () => {
  let store: Store
  beforeAll(async () => {
    store = await openStore(PG!)
    await writeGgufFile(model, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 9 }).file)
  })
  afterAll(async () => {
    for (const c of children) await kill(c)
    await store?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('should value trials by goodput, label them ok/infeasible/failed, resume after the server is killed, and store each trial once', async () => {
    const prefix = `kt-test-${randomUUID().slice(0, 8)}`
    const env = { KT_REDIS: REDIS!, KT_DB: PG!, KT_PREFIX: prefix, KT_DEVICE: 'tier2 server test' }
    const { token } = await store.tokens.create('operator', 'acme', 'tier 2 server test')
    const api = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/api/v1/kernels${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    const registry = defaultRegistry()
    // Tier 1: the translator's settings at llama-server's defaults (one thread), slots auto or 1.
    const restrict = { ...Object.fromEntries(LLAMACPP_DIMENSIONS.map((d) => [d.id, [d.defaultValue]])), threads: ['1'], parallel: ['auto', '1'], cont_batching: ['on'] }
    const run = await createRun(store, {
      model: { ...MODEL, name: 'tiny synthetic llama' }, hardware: { name: 'cpu', vendor: 'cpu', memBwGbs: 20, fp16Tflops: 0.5 }, engine: 'llamacpp', backend: 'server', modelPath: model,
      repetitions: 2, warmups: 0, earlyStop: false, useCache: false, workload: { batch: 2, promptTokens: 16, generatedTokens: 8 }, restrict, slo: SLO,
    }, { catalog: buildCatalog(registry), registry, tenant: 'acme' })
    const [worker] = await Promise.all([spawnFixture('worker.fixture.ts', env)])
    let server = await spawnFixture('server.fixture.ts', env)
    const c = connect(REDIS!)
    const q = new Queue('combos', { connection: c, prefix })
    try {
      await until(async () => ['succeeded', 'failed'].includes((await store.runs.require(null, run.id)).status), 180)
      const tier1 = await store.runs.require(null, run.id)
      expect(tier1.status).toBe('succeeded')
      // The run judged its combinations by the objectives from the requests the worker stored.
      const objectives = (tier1.summary as unknown as RunSummary).objectives!
      expect(objectives.objective).toBe('goodput')
      expect(objectives.candidates.length).toBe(2)
      for (const x of objectives.candidates) expect(x.goodput!.met).toBeLessThanOrEqual(2 * 8)
      // The shape the API documents and the dashboard's run view reads (the candidates' keys too).
      expect(ObjectivesResponse.strict().extend({ candidates: z.array(ObjectivesResponse.shape.candidates.element.strict()) }).safeParse(objectives).error).toBeUndefined()

      const started = await api(server.line.url!, 'POST', '/tune', { runId: run.id, budget: { trials: 6 }, strategy: 'random', seed: 4, keep: ['parallel', 'cont_batching'], repetitions: 2, slo: SLO, objective: 'goodput' })
      expect(started.status).toBe(202)
      const id = started.body.id as string
      const done = async () => (await store.tune.require(null, id)).trialsDone
      // The first q-batch (four trials) is stored; kill the server while the second is out.
      await until(async () => (await done()) >= 4 && ((await q.getJobCounts('active')).active ?? 0) >= 1, 240)
      const before = await done()
      expect(before).toBeGreaterThanOrEqual(4)
      expect(before).toBeLessThan(6)
      await kill(server.child)
      server = await spawnFixture('server.fixture.ts', env)
      expect((await store.tune.require(null, id)).status).toBe('paused')
      const resumed = await api(server.line.url!, 'POST', `/tune/${id}/resume`)
      expect(resumed.status).toBe(202)
      await until(async () => ['completed', 'failed'].includes((await store.tune.require(null, id)).status), 240)
      const session = await store.tune.require(null, id)
      expect(session.status).toBe('completed')
      const trials = await store.tune.trials(id)
      expect(trials.map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5])
      const rows = await store.driver.query('SELECT idx, COUNT(*) AS n FROM kernel_tune_trials WHERE session_id = ? GROUP BY idx', [id])
      expect(rows.map((r) => Number(r.n))).toEqual(trials.map(() => 1))
      // Six different settings of slots × continuous batching, measured by the worker.
      expect(new Set(trials.map((t) => `${t.config.parallel}/${t.config.cont_batching}`)).size).toBe(6)
      if (process.env.KT_TEST_DEBUG) console.log(JSON.stringify(trials.map((t) => [t.index, t.outcome, t.config.parallel, t.config.cont_batching, t.value, (t.metrics as Record<string, unknown>).violations, (t.metrics as Record<string, unknown>).worker, (t.metrics as Record<string, unknown>).failure])))
      // Every trial was a job of the worker process.
      expect(trials.every((t) => (t.metrics as { worker?: string }).worker === worker.line.id)).toBe(true)
      // Every trial ran: the worker measured all six settings (a trial that failed would have been
      // valued null, and a session of failed trials has no best, which the last check alone would
      // accept). The kill hits the API server, not the worker, so no measurement is lost to it.
      expect(trials.filter((t) => t.outcome === 'failed').map((t) => [t.index, (t.metrics as { failure?: unknown }).failure])).toEqual([])
      for (const t of trials) {
        const m = t.metrics as { feasible?: boolean; violations?: { metric: string; limit: number; value: number | null }[]; goodput?: { requestsPerSecond: number; met: number }; objective?: string; failure?: { kind: string } }
        // A measured trial is valued by goodput under the objectives; infeasible exactly when it missed one.
        expect(m.objective).toBe('goodput')
        expect(t.value).toBe(m.goodput!.requestsPerSecond)
        expect(t.outcome).toBe(m.feasible ? 'ok' : 'infeasible')
        expect(m.violations!.length === 0).toBe(m.feasible)
      }
      const ok = trials.filter((t) => t.outcome === 'ok').sort((a, b) => b.value! - a.value!)
      // The best is the best feasible trial; null only when every measured trial missed an objective.
      expect(session.best?.trial ?? null).toBe(ok[0]?.index ?? null)
      expect(worker.child.exitCode).toBeNull()
    } finally {
      await q.close()
      c.disconnect()
      await kill(server.child)
      await kill(worker.child)
    }
  }, 600_000)
})
