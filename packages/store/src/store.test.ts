import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunTarget } from '@kerneltune/core'
import { openStore, type Store } from './store.ts'
import { driftBand } from './repos/deployments.ts'
import { generateToken } from './repos/tokens.ts'
import { sha256 } from './util.ts'
import { MIGRATIONS, migrate } from './migrations.ts'
import { createLibsqlDriver } from './adapters/libsql.ts'
import { createPostgresDriver } from './adapters/postgres.ts'

const PG_URL = process.env.KERNELTUNE_TEST_PG_URL
const dir = mkdtempSync(join(tmpdir(), 'kerneltune-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TABLES = ['deployment_decisions', 'deployment_arms', 'api_token_events', 'calibration_runs', 'deployments', 'api_tokens', 'result_cache', 'l1_kernel_registry_approvals', 'l1_kernel_registry',
  'kernel_tune_trials', 'kernel_tune_sessions', 'kernel_run_combos', 'kernel_runs', 'kernel_catalog_snapshots', 'schema_migrations']

const target: RunTarget = {
  model: { paramsB: 7, quant: 'Q4_K' },
  hardware: { name: 'H100 SXM', vendor: 'nvidia', kind: 'gpu', memBwGbs: 3350, fp16Tflops: 989, unifiedMemory: false, sources: [] },
  engine: 'vllm',
  engineVersion: '0.11.0',
  workload: { batch: 1, phase: 'decode', promptTokens: 512, generatedTokens: 128, cudaGraphs: false },
}
const snapshot = { hash: 'abc123', version: '1.0.0', content: { dims: 6 } }
const combos = [
  { combo: { attention_backend: 'native' }, comboHash: 'h0', isBaseline: true },
  { combo: { attention_backend: 'flashinfer' }, comboHash: 'h1', isBaseline: false },
]

/**
 * This suite drops every table it knows before it starts, so on the shared test cluster it works in
 * a database of its own: other packages' suites (the server's distributed tests, the CLI's worker
 * test) run at the same time against the database KERNELTUNE_TEST_PG_URL names, and a fresh-clone
 * CI run once had their tables dropped under them.
 */
async function ownDatabase(url: string): Promise<string> {
  const own = new URL(url)
  const name = `${own.pathname.slice(1) || 'kerneltune_test'}_store`.replace(/[^a-z0-9_]/gi, '_')
  const admin = await createPostgresDriver(url)
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = ?', [name])).length === 0) await admin.run(`CREATE DATABASE ${name}`)
  } catch (e) {
    if (!/already exists/.test(String(e))) throw e
  } finally {
    await admin.close()
  }
  own.pathname = `/${name}`
  return own.toString()
}
let pgOwnUrl: string | undefined

const drivers: [string, () => string | undefined][] = [
  ['sqlite', () => join(dir, 'test.db')],
  ['postgres', () => pgOwnUrl],
]

describe.each(drivers)('store on %s', (name, url) => {
  // CI (.ci/run) starts a throwaway PostgreSQL, so there a missing URL fails instead of skipping.
  const skip = name === 'postgres' && requireOrSkip(Boolean(PG_URL), 'PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (bash tooling/scripts/start-test-postgres.sh starts one and prints it)')
  let store: Store
  let clock = 1_000_000

  beforeAll(async () => {
    if (skip) return
    if (name === 'postgres') {
      pgOwnUrl = await ownDatabase(PG_URL!)
      // A throwaway database: start from an empty schema every run.
      const fresh = await openStore(url()!)
      for (const t of TABLES) await fresh.driver.run(`DROP TABLE IF EXISTS ${t} CASCADE`)
      await fresh.close()
    }
    store = await openStore(url()!, { clock: () => clock })
  })
  afterAll(async () => {
    if (!skip) await store.close()
  })

  it.skipIf(skip)('should migrate once and report the schema version', async () => {
    expect(await store.schemaVersion()).toBe(9)
    const again = await openStore(url()!)
    expect(await again.schemaVersion()).toBe(9)
    await again.close()
  })

  it.skipIf(skip)('should let one process claim a run, refresh its heartbeat, refuse a second claim on a stale view and release it', async () => {
    const run = await store.runs.create({ tenant: 't1', mode: 'quick', target, snapshot, qualityGate: 'topk5', backend: 'gpu-kernels', repetitions: 2, combos })
    expect(await store.runs.owner(run.id)).toBeNull()
    const a = { id: 'claim-a', pid: 11, host: 'h1', startedAt: '2026-01-01T00:00:00Z', heartbeatAt: '2026-01-01T00:00:00Z' }
    const b = { ...a, id: 'claim-b', pid: 22 }
    expect(await store.runs.claim(run.id, a, null)).toBe(true)
    // b read the run as unclaimed before a's claim: its compare-and-set fails.
    expect(await store.runs.claim(run.id, b, null)).toBe(false)
    expect(await store.runs.heartbeat(run.id, { ...a, heartbeatAt: '2026-01-01T00:00:10Z' })).toBe(true)
    expect(await store.runs.owner(run.id)).toMatchObject({ id: 'claim-a', pid: 11, heartbeatAt: '2026-01-01T00:00:10Z' })
    // Taking over from a (resume --force, or a dead owner) names the claim it replaces; a's heartbeat then fails.
    expect(await store.runs.claim(run.id, b, 'claim-a')).toBe(true)
    expect(await store.runs.heartbeat(run.id, a)).toBe(false)
    await store.runs.release(run.id, 'claim-a')
    expect((await store.runs.owner(run.id))?.id).toBe('claim-b')
    await store.runs.release(run.id, 'claim-b')
    expect(await store.runs.owner(run.id)).toBeNull()
  })

  it.skipIf(skip)('should create a run with its snapshot and combos, and isolate tenants', async () => {
    const run = await store.runs.create({ tenant: 't1', mode: 'quick', target, snapshot, qualityGate: 'topk5', backend: 'gpu-kernels', repetitions: 7, combos })
    expect(run).toMatchObject({ status: 'queued', progress: { done: 0, total: 2 }, snapshotHash: 'abc123', catalogVersion: '1.0.0' })
    expect(run.target.model.quant).toBe('Q4_K')
    expect(await store.runs.get('t2', run.id)).toBeUndefined()
    expect((await store.runs.list('t2')).total).toBe(0)
    expect((await store.runs.snapshot('abc123'))?.content).toEqual({ dims: 6 })
    const listed = await store.runs.combos(run.id)
    expect(listed.map((c) => [c.index, c.comboHash, c.isBaseline, c.status])).toEqual([[0, 'h0', true, 'pending'], [1, 'h1', false, 'pending']])
  })

  it.skipIf(skip)('should record combos, advance progress and finish with gates and summary', async () => {
    const run = await store.runs.create({ tenant: 't1', mode: 'exhaustive', target, snapshot, qualityGate: 'pareto', backend: 'b', repetitions: 3, combos })
    await store.runs.setStatus(run.id, 'running')
    const metrics = { throughputTps: 100, latencyP50Ms: 10, latencyP95Ms: 12, latencyP99Ms: 13 }
    const kernels = [{ id: 'k1', name: 'gemv.thread-per-row.f16', kernelFamily: 'gemv/f16', selection: 'selected' as const, used: true, why: 'approved; used for qkv' }]
    // A serving backend's repetition carries its load run's requests (objectives and goodput are judged from them).
    const serving = { durationS: 0.5, requests: [{ ok: true, startMs: 0, e2eMs: 40, ttftMs: 12, outputTokens: 8, itlMs: [4, 4, 4, 4, 4, 4, 4] }, { ok: false, startMs: 1, e2eMs: 3, itlMs: [], error: 'HTTP 400' }] }
    await store.runs.recordCombo(run.id, 0, { status: 'measured', simulated: false, cached: false, repetitions: [{ latencyMs: 10, serving }], metrics, comparison: null, error: null, kernels })
    expect((await store.runs.require('t1', run.id)).progress).toEqual({ done: 1, total: 2 })
    await store.runs.recordCombo(run.id, 1, { status: 'failed', simulated: false, cached: true, repetitions: [], metrics: null, comparison: { p: 0.01 }, error: 'boom' })
    await store.runs.finish(run.id, 'succeeded', { winner: 0 }, new Map([[0, { passed: true, reasons: ['ok'] }]]))
    const done = await store.runs.require('t1', run.id)
    expect(done).toMatchObject({ status: 'succeeded', summary: { winner: 0 }, progress: { done: 2, total: 2 } })
    const [c0, c1] = await store.runs.combos(run.id)
    expect(c0).toMatchObject({ status: 'measured', metrics, gate: { passed: true, reasons: ['ok'] }, simulated: false, kernels, repetitions: [{ latencyMs: 10, serving }] })
    expect(c1).toMatchObject({ status: 'failed', cached: true, comparison: { p: 0.01 }, error: 'boom', gate: null })
    expect(c1!.kernels).toBeUndefined()
  })

  it.skipIf(skip)('should refuse a second result for the same (run, combination)', async () => {
    const run = await store.runs.create({ tenant: 't1', mode: 'exhaustive', target, snapshot, qualityGate: 'pareto', backend: 'b', repetitions: 3, combos })
    const metrics = { throughputTps: 100, latencyP50Ms: 10, latencyP95Ms: 12, latencyP99Ms: 13 }
    const first = { status: 'measured' as const, simulated: false, cached: false, repetitions: [{ latencyMs: 10 }], metrics, comparison: null, error: null }
    expect(await store.runs.recordComboOnce(run.id, 0, first)).toBe(true)
    // A retried job racing the first one: refused, the first result stays, progress counts it once.
    expect(await store.runs.recordComboOnce(run.id, 0, { ...first, repetitions: [{ latencyMs: 99 }] })).toBe(false)
    const settled = await Promise.all([1, 2, 3].map(() => store.runs.recordComboOnce(run.id, 1, first)))
    expect(settled.filter(Boolean)).toHaveLength(1)
    expect((await store.runs.require('t1', run.id)).progress).toEqual({ done: 2, total: 2 })
    expect((await store.runs.combos(run.id))[0]!.repetitions).toEqual([{ latencyMs: 10 }])
  })

  it.skipIf(skip)('should count every result when workers store different combinations at once', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ combo: { a: String(i) }, comboHash: `m${i}`, isBaseline: i === 0 }))
    const run = await store.runs.create({ tenant: 't1', mode: 'exhaustive', target, snapshot, qualityGate: 'pareto', backend: 'b', repetitions: 3, combos: many })
    const r = { status: 'measured' as const, simulated: false, cached: false, repetitions: [{ latencyMs: 10 }], metrics: null, comparison: null, error: null }
    expect((await Promise.all(many.map((_, i) => store.runs.recordComboOnce(run.id, i, r)))).every(Boolean)).toBe(true)
    expect((await store.runs.require('t1', run.id)).progress).toEqual({ done: 12, total: 12 })
  })

  it.skipIf(skip)('should leave nothing behind when a run cannot be created whole', async () => {
    const before = (await store.runs.list(null, { includeDeleted: true })).total
    const bad = [...combos, { combo: { a: 'b' }, comboHash: null as unknown as string, isBaseline: false }]
    await expect(store.runs.create({ tenant: 't1', mode: 'quick', target, snapshot, qualityGate: 'manual', backend: 'b', repetitions: 1, combos: bad })).rejects.toThrow()
    expect((await store.runs.list(null, { includeDeleted: true })).total).toBe(before)
  })

  it.skipIf(skip)('should filter, paginate and soft-delete runs', async () => {
    const all = await store.runs.list('t1')
    expect(all.total).toBeGreaterThanOrEqual(2)
    const page = await store.runs.list('t1', { limit: 1, offset: 0 })
    expect(page.items).toHaveLength(1)
    expect((await store.runs.list('t1', { status: 'succeeded' })).items.every((r) => r.status === 'succeeded')).toBe(true)
    await store.runs.softDelete('t1', page.items[0]!.id)
    expect((await store.runs.list('t1')).total).toBe(all.total - 1)
    expect(await store.runs.get('t1', page.items[0]!.id, true)).toBeDefined()
    await expect(store.runs.softDelete('t2', all.items[1]!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it.skipIf(skip)('should list the brief form with the same rows and totals, filtered by creation time, from the list index', async () => {
    const a = await store.runs.create({ tenant: 't3', mode: 'quick', target, snapshot, qualityGate: 'manual', backend: 'b', repetitions: 1, combos })
    // created_at is the wall clock (ms): step past a's millisecond.
    await new Promise((r) => setTimeout(r, 5))
    const b = await store.runs.create({ tenant: 't3', mode: 'quick', target, snapshot, qualityGate: 'manual', backend: 'b', repetitions: 1, combos })
    await store.runs.finish(b.id, 'succeeded', { winner: { value: 12.5, improvement: 0.25 }, other: 'x'.repeat(500) }, new Map())
    await store.runs.create({ tenant: 't4', mode: 'quick', target, snapshot, qualityGate: 'manual', backend: 'b', repetitions: 1, combos })
    const full = await store.runs.list('t3')
    const brief = await store.runs.listBrief('t3')
    expect(brief.total).toBe(full.total)
    expect(brief.items.map((r) => r.id)).toEqual([b.id, a.id])
    expect(brief.items[0]).toEqual({
      id: b.id, status: 'succeeded', mode: 'quick', backend: 'b', qualityGate: 'manual', progress: { done: 0, total: 2 }, error: null,
      createdAt: full.items[0]!.createdAt, updatedAt: full.items[0]!.updatedAt,
      target: { engine: 'vllm', engineVersion: '0.11.0', model: {}, hardware: { name: 'H100 SXM' } },
      winner: { value: 12.5, improvement: 0.25 },
    })
    expect(brief.items[1]!.winner).toBeNull()
    const cut = b.createdAt
    expect((await store.runs.listBrief('t3', { since: cut })).items.map((r) => r.id)).toEqual([b.id])
    expect((await store.runs.list('t3', { until: cut })).items.map((r) => r.id)).toEqual([a.id])
    expect((await store.runs.listBrief('t3', { since: cut, until: cut })).total).toBe(0)
    expect(await store.runs.listBrief('t3', { offset: 5 })).toEqual({ items: [], total: 2 })
    expect((await store.runs.listBrief('t3', { limit: 1, offset: 1 })).total).toBe(2)
    if (name === 'sqlite') {
      const plan = await store.driver.query('EXPLAIN QUERY PLAN SELECT COUNT(*) FROM kernel_runs WHERE tenant = ? AND deleted_at IS NULL', ['t3'])
      expect(plan.map((r) => String(r.detail)).join(' ')).toContain('COVERING INDEX kernel_runs_tenant_live_created')
    }
  })

  it.skipIf(skip)('should record trials with optimizer state atomically, exactly once per index', async () => {
    const run = await store.runs.create({ tenant: 't1', mode: 'quick', target, snapshot, qualityGate: 'manual', backend: 'b', repetitions: 1, combos })
    const s = await store.tune.create({ tenant: 't1', runId: run.id, strategy: 'bo', budget: { trials: 5 }, narrowing: { kept: ['a'] }, optimizerState: { n: 0 } })
    expect(s).toMatchObject({ status: 'running', trialsDone: 0, optimizerState: { n: 0 } })
    await store.tune.recordTrial(s.id, { index: 0, config: { a: 'x' }, outcome: 'ok', value: 3 }, { optimizerState: { n: 1 }, best: { trial: 0, config: { a: 'x' }, value: 3 }, elapsedMs: 5 })
    await expect(store.tune.recordTrial(s.id, { index: 0, config: { a: 'y' }, outcome: 'ok', value: 2 }, { optimizerState: { n: 9 }, best: null, elapsedMs: 6 }))
      .rejects.toMatchObject({ code: 'CONFLICT' })
    await store.tune.recordTrial(s.id, { index: 1, config: { a: 'y' }, outcome: 'failed', value: null }, { optimizerState: { n: 2 }, best: { trial: 0, config: { a: 'x' }, value: 3 }, elapsedMs: 9 })
    // Ran but missed a latency objective: its value is kept, and it is not the best.
    await store.tune.recordTrial(s.id, { index: 2, config: { a: 'z' }, outcome: 'infeasible', value: 7, metrics: { feasible: false, violations: [{ metric: 'ttft_p99_ms', limit: 500, value: 812 }] } }, { optimizerState: { n: 2 }, best: { trial: 0, config: { a: 'x' }, value: 3 }, elapsedMs: 9 })
    const after = await store.tune.require('t1', s.id)
    expect(after).toMatchObject({ trialsDone: 3, optimizerState: { n: 2 }, elapsedMs: 9, best: { trial: 0, value: 3 } })
    expect((await store.tune.trials(s.id)).map((t) => [t.index, t.outcome, t.value])).toEqual([[0, 'ok', 3], [1, 'failed', null], [2, 'infeasible', 7]])
    await store.tune.setStatus(s.id, 'paused', null, { n: 2, paused: true })
    expect((await store.tune.require('t1', s.id)).status).toBe('paused')
    expect(await store.tune.get('t2', s.id)).toBeUndefined()
  })

  it.skipIf(skip)('should keep the registry approval log and refuse bad transitions', async () => {
    const e = await store.registry.submit({ tenant: 't1', name: 'q4 gemv v2', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}', actor: 'alice' })
    expect(e.status).toBe('proposed')
    await expect(store.registry.deprecate('t1', e.id, 'bob', 'unsafe')).resolves.toMatchObject({ status: 'deprecated' })
    await expect(store.registry.approve('t1', e.id, 'carol')).rejects.toMatchObject({ code: 'CONFLICT' })
    const e2 = await store.registry.submit({ tenant: 't1', name: 'q8', kernelFamily: 'gemv', provider: 'template', source: '', actor: 'alice' })
    await expect(store.registry.approve('t1', e2.id, 'alice', 'my own')).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await store.registry.approve('t1', e2.id, 'carol', 'reviewed')
    expect((await store.registry.events(e.id)).map((x) => x.action)).toEqual(['submit', 'deprecate'])
    expect((await store.registry.list('t1', 'approved')).map((x) => x.id)).toEqual([e2.id])
    expect(await store.registry.countByStatus()).toMatchObject({ approved: 1, deprecated: 1 })
    await expect(store.registry.approve('t2', e2.id, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it.skipIf(skip)('should read an entry\'s log in the order it was written, even within one millisecond', async () => {
    // Submit, approve and deprecate back to back: most land in the same millisecond, and the log's
    // event ids are random, so only strictly increasing times keep the order.
    for (let i = 0; i < 10; i++) {
      const e = await store.registry.submit({ tenant: 't3', name: `k${i}`, kernelFamily: 'gemv', provider: 'template', source: '', actor: 'alice' })
      await store.registry.approve('t3', e.id, 'bob')
      await store.registry.deprecate('t3', e.id, 'carol', 'superseded')
      const log = await store.registry.events(e.id)
      expect(log.map((x) => x.action)).toEqual(['submit', 'approve', 'deprecate'])
      expect(new Set(log.map((x) => x.createdAt)).size).toBe(3)
    }
  })

  it.skipIf(skip)('should expire, invalidate and flush cache entries', async () => {
    const key = { tenant: 't1', catalogVersion: '1', engine: 'vllm', engineVersion: '0.11', modelHash: 'm', hardwareFingerprint: 'h', workloadFingerprint: 'w', comboHash: 'c' }
    await store.cache.put(key, { tps: 10 }, 1000)
    expect(await store.cache.get(key)).toEqual({ tps: 10 })
    clock += 1001
    expect(await store.cache.get(key)).toBeUndefined()
    await store.cache.put(key, { tps: 11 })
    await store.cache.put({ ...key, engine: 'tgi', engineVersion: '3.3' }, { tps: 12 })
    expect(await store.cache.invalidateStale({ catalogVersion: '1', engines: { vllm: '0.12' } })).toBe(1)
    expect(await store.cache.get(key)).toBeUndefined()
    expect(await store.cache.flush({ allTenants: true })).toBe(1)
  })

  it.skipIf(skip)('should keep cache entries of tenants apart and flush one tenant only', async () => {
    const key = { tenant: 'acme', catalogVersion: '1', engine: 'vllm', engineVersion: '0.11', modelHash: 'm', hardwareFingerprint: 'h', workloadFingerprint: 'w', comboHash: 'c' }
    await store.cache.put(key, { tps: 1 })
    expect(await store.cache.get({ ...key, tenant: 'globex' })).toBeUndefined()
    await store.cache.put({ ...key, tenant: 'globex' }, { tps: 2 })
    expect(await store.cache.flush({ tenant: 'globex' })).toBe(1)
    expect(await store.cache.get(key)).toEqual({ tps: 1 })
    expect(await store.cache.flush({ tenant: 'acme', engine: 'tgi' })).toBe(0)
    expect(await store.cache.flush({ tenant: 'acme' })).toBe(1)
  })


  it.skipIf(skip)('should store only token hashes and verify, revoke', async () => {
    const { token, info } = await store.tokens.create('operator', 't1', 'ci')
    expect(token).toMatch(/^kt_[0-9a-f]{64}$/)
    expect(await store.tokens.verify(token)).toMatchObject({ role: 'operator', tenant: 't1' })
    const rows = await store.driver.query('SELECT token_hash FROM api_tokens')
    expect(rows.some((r) => r.token_hash === token)).toBe(false)
    expect(await store.tokens.revoke(info.id, 'admin-1', 'leaked')).toBe(true)
    expect(await store.tokens.revoke(info.id, 'admin-1')).toBe(false)
    expect(await store.tokens.verify(token)).toBeUndefined()
    expect((await store.tokens.events('t1', info.id)).map((e) => [e.action, e.actor, e.detail])).toEqual([
      ['create', '(store)', { role: 'operator', label: 'ci', expiresAt: null, actsFor: null }], ['revoke', 'admin-1', { reason: 'leaked' }],
    ])
  })

  it.skipIf(skip)('should refuse an expired token, list a tenant\'s tokens with who minted them, and note their last use', async () => {
    const boss = await store.tokens.create('admin', 'tx', 'boss')
    const past = await store.tokens.create('viewer', 'tx', 'old', undefined, { mintedBy: boss.info.id, expiresAt: new Date(clock - 1000).toISOString() })
    const future = await store.tokens.create('viewer', 'tx', 'new', undefined, { mintedBy: boss.info.id, expiresAt: new Date(clock + 60_000).toISOString(), actsFor: past.info.id })
    expect(await store.tokens.verify(past.token)).toBeUndefined()
    expect(await store.tokens.verify(future.token)).toMatchObject({ id: future.info.id, mintedBy: boss.info.id, actsFor: past.info.id })
    const listed = await store.tokens.list('tx')
    expect(listed.map((t) => [t.label, t.mintedBy, t.lastUsedAt === null])).toEqual([['boss', '(store)', true], ['old', boss.info.id, true], ['new', boss.info.id, false]])
    expect(JSON.stringify(listed)).not.toContain(future.token)
    expect((await store.tokens.list(null)).length).toBeGreaterThan(listed.length)
    await expect(store.tokens.create('viewer', 'other-tenant', null, undefined, { actsFor: past.info.id })).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it.skipIf(skip)('should count a token minted by the submitter, or for them, as the submitter when approving', async () => {
    const root = await store.tokens.create('superadmin', 'default', 'root')
    const alice = await store.tokens.create('admin', 't4', 'alice', undefined, { mintedBy: root.info.id })
    const bob = await store.tokens.create('approver', 't4', 'bob', undefined, { mintedBy: root.info.id })
    // The bypass of issue 23 item 16: alice mints herself an approver token (directly, and through a second admin token).
    const aliceApprover = await store.tokens.create('approver', 't4', 'alice approves', undefined, { mintedBy: alice.info.id })
    const alice2 = await store.tokens.create('admin', 't4', 'alice 2', undefined, { mintedBy: alice.info.id })
    const deep = await store.tokens.create('approver', 't4', 'deep', undefined, { mintedBy: alice2.info.id })
    // bob, an admin acting for alice, mints her an approver token; and alice mints a token "for bob" to submit with.
    const forAlice = await store.tokens.create('approver', 't4', 'for alice', undefined, { mintedBy: bob.info.id, actsFor: alice.info.id })
    const aliceAsBob = await store.tokens.create('admin', 't4', 'as bob', undefined, { mintedBy: alice.info.id, actsFor: bob.info.id })
    const e = await store.registry.submit({ tenant: 't4', name: 'k', kernelFamily: 'gemv', provider: 'human', source: '', actor: alice.info.id })
    for (const t of [alice, aliceApprover, alice2, deep, forAlice]) {
      await expect(store.registry.approve('t4', e.id, t.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/submitter/) })
    }
    // Submitted through a token alice minted: alice cannot approve it either.
    const e2 = await store.registry.submit({ tenant: 't4', name: 'k2', kernelFamily: 'gemv', provider: 'human', source: '', actor: aliceAsBob.info.id })
    await expect(store.registry.approve('t4', e2.id, alice.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(store.registry.approve('t4', e2.id, bob.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    // A genuinely different approver, minted by the superadmin for someone else.
    await expect(store.registry.approve('t4', e.id, bob.info.id, 'reviewed')).resolves.toMatchObject({ status: 'approved' })
    expect((await store.registry.events(e.id)).map((x) => [x.action, x.actor])).toEqual([['submit', alice.info.id], ['approve', bob.info.id]])
  })

  it.skipIf(skip)('should follow the minting chain of the token an approver acts for (issue 34 item 25), transitively', async () => {
    const root = await store.tokens.create('superadmin', 'default', 'root')
    const adminA = await store.tokens.create('admin', 't5', 'a', undefined, { mintedBy: root.info.id })
    const adminA2 = await store.tokens.create('admin', 't5', 'a2', undefined, { mintedBy: root.info.id })
    const viewerV = await store.tokens.create('viewer', 't5', 'v', undefined, { mintedBy: adminA.info.id })
    const laundered = await store.tokens.create('approver', 't5', 'for v', undefined, { mintedBy: adminA2.info.id, actsFor: viewerV.info.id })
    // Two links further: an admin minted for V mints the approver, which itself acts for no one.
    const forV = await store.tokens.create('admin', 't5', 'admin for v', undefined, { mintedBy: adminA2.info.id, actsFor: viewerV.info.id })
    const deep = await store.tokens.create('approver', 't5', 'deep', undefined, { mintedBy: forV.info.id })
    const e = await store.registry.submit({ tenant: 't5', name: 'k', kernelFamily: 'gemv', provider: 'human', source: '', actor: adminA.info.id })
    await expect(store.registry.approve('t5', e.id, laundered.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining(`acts for ${viewerV.info.id}, which was minted by ${adminA.info.id}, which counts as the submitter`) })
    await expect(store.registry.approve('t5', e.id, deep.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    // The mirror image: the submitter acts for a token the approver's minter made.
    const viewerW = await store.tokens.create('viewer', 't5', 'w', undefined, { mintedBy: adminA2.info.id })
    const submitterForW = await store.tokens.create('admin', 't5', 'admin for w', undefined, { mintedBy: root.info.id, actsFor: viewerW.info.id })
    const e2 = await store.registry.submit({ tenant: 't5', name: 'k2', kernelFamily: 'gemv', provider: 'human', source: '', actor: submitterForW.info.id })
    const byA2 = await store.tokens.create('approver', 't5', 'a2 approves', undefined, { mintedBy: adminA2.info.id })
    await expect(store.registry.approve('t5', e2.id, byA2.info.id)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    // Legitimate: acting for a viewer neither side's chain reaches, minted by the other admin or the superadmin.
    const viewerX = await store.tokens.create('viewer', 't5', 'x', undefined, { mintedBy: root.info.id })
    const reviewer = await store.tokens.create('approver', 't5', 'for x', undefined, { mintedBy: adminA2.info.id, actsFor: viewerX.info.id })
    await expect(store.registry.approve('t5', e.id, reviewer.info.id, 'reviewed')).resolves.toMatchObject({ status: 'approved' })
    const reviewer2 = await store.tokens.create('approver', 't5', 'by a', undefined, { mintedBy: adminA.info.id, actsFor: viewerX.info.id })
    await expect(store.registry.approve('t5', e2.id, reviewer2.info.id)).resolves.toMatchObject({ status: 'approved' })
  })

  it.skipIf(skip)('should track deployments and compute drift bands', async () => {
    const d = await store.deployments.create({ tenant: 't1', name: 'prod', engine: 'vllm', engineVersion: '0.11.0' })
    expect((await store.deployments.drift('t1', d.id)).band).toBe('unknown')
    await store.deployments.applyCombo('t1', d.id, { attention_backend: 'flashinfer' }, null)
    await store.deployments.recordCalibration('t1', d.id, 100, 90)
    expect(await store.deployments.drift('t1', d.id)).toMatchObject({ band: 'minor', predictedTps: 100, measuredTps: 90 })
    expect((await store.deployments.require('t1', d.id)).currentCombo).toEqual({ attention_backend: 'flashinfer' })
    expect((await store.deployments.recent('t1', '2000-01-01')).map((x) => x.id)).toContain(d.id)
  })

  it.skipIf(skip)('should store a gateway deployment: settings, per-arm statistics replaced, decisions appended, the leading combination', async () => {
    const d = await store.deployments.create({ tenant: 't1', name: 'gw', engine: 'llamacpp', engineVersion: 'b1' })
    expect(await store.deployments.gateway('t1', d.id)).toBeNull()
    const decision = (seq: number, arm: string) => ({ seq, at: `2026-01-01T00:00:0${seq}Z`, arm, reason: 'policy', ok: true, met: seq !== 2, reward: 0.7, ttftMs: 12.5, tpotMs: null })
    await store.deployments.recordGateway('t1', d.id, { gateway: { policy: 'thompson', state: 'running' }, arms: [{ arm: 'defaults', combo: {}, stats: { requests: 1 } }, { arm: 'slots1', combo: { parallel: '1' }, stats: { requests: 1 } }], decisions: [decision(1, 'defaults'), decision(2, 'slots1')] })
    await store.deployments.recordGateway('t1', d.id, { gateway: { policy: 'thompson', state: 'stopped' }, arms: [{ arm: 'defaults', combo: {}, stats: { requests: 2 } }, { arm: 'slots1', combo: { parallel: '1' }, stats: { requests: 1 } }], decisions: [decision(3, 'defaults')], currentCombo: {} })
    const g = (await store.deployments.gateway('t1', d.id, 2))!
    expect(g.gateway).toEqual({ policy: 'thompson', state: 'stopped' })
    expect(g.arms).toEqual([{ arm: 'defaults', combo: {}, stats: { requests: 2 } }, { arm: 'slots1', combo: { parallel: '1' }, stats: { requests: 1 } }])
    expect(g.decisionCount).toBe(3)
    expect(g.decisions.map((x) => [x.seq, x.arm, x.met, x.ttftMs, x.tpotMs])).toEqual([[3, 'defaults', true, 12.5, null], [2, 'slots1', false, 12.5, null]])
    expect((await store.deployments.require('t1', d.id)).currentCombo).toEqual({})
    await expect(store.deployments.gateway('t2', d.id)).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})

/** A token as the schema before migration 7 stored it (no minter, expiry or audit event). */
async function legacyToken(driver: Awaited<ReturnType<typeof createLibsqlDriver>>, role: string, tenant: string, label: string) {
  const token = generateToken()
  const id = `legacy-${label.replace(/\W/g, '-')}`
  await driver.run('INSERT INTO api_tokens (id, token_hash, role, tenant, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)', [id, await sha256(token), role, tenant, label, '2026-01-01T00:00:00.000Z'])
  return { token, id }
}

describe('migration 3', () => {
  it('should make the bootstrap admin token of an older store the superadmin, and leave other admins alone', async () => {
    const driver = await createLibsqlDriver(`file:${join(dir, 'v2.db')}`)
    await migrate(driver, MIGRATIONS.filter((m) => m.version <= 2))
    const boot = await legacyToken(driver, 'admin', 'default', 'bootstrap admin')
    const other = await legacyToken(driver, 'admin', 'acme', 'ops')
    await driver.close()
    const store = await openStore(join(dir, 'v2.db'))
    expect(await store.tokens.verify(boot.token)).toMatchObject({ role: 'superadmin', tenant: 'default' })
    expect(await store.tokens.verify(other.token)).toMatchObject({ role: 'admin', tenant: 'acme' })
    await store.close()
  })
})

describe('driftBand', () => {
  it.each([[0.01, 'none'], [0.05, 'minor'], [-0.1, 'minor'], [0.15, 'minor'], [0.151, 'significant'], [null, 'unknown']] as const)(
    'should put %s in %s', (r, band) => expect(driftBand(r)).toBe(band),
  )
})

describe('migration 6', () => {
  it('should fill the list columns of runs stored before it from their target and summary', async () => {
    const driver = await createLibsqlDriver(`file:${join(dir, 'v5.db')}`)
    await migrate(driver, MIGRATIONS.filter((m) => m.version <= 5))
    await driver.run("INSERT INTO kernel_catalog_snapshots (hash, version, content, created_at) VALUES ('s', '1', '{}', '2026-01-01T00:00:00.000Z')")
    const row = (id: string, summary: string | null) => driver.run(
      `INSERT INTO kernel_runs (id, tenant, status, mode, target, engine, snapshot_hash, catalog_version, quality_gate, backend, repetitions,
        progress_done, progress_total, summary, error, created_at, updated_at, deleted_at)
       VALUES (?, 't', 'succeeded', 'quick', ?, 'vllm', 's', '1', 'manual', 'b', 1, 1, 1, ?, NULL, ?, ?, NULL)`,
      [id, JSON.stringify({ ...target, model: { ...target.model, name: 'm7' } }), summary, `2026-01-0${id === 'a' ? 1 : 2}T00:00:00.000Z`, '2026-01-03T00:00:00.000Z'])
    await row('a', null)
    await row('b', JSON.stringify({ winner: { value: 41.5, improvement: null, combo: {} } }))
    await driver.close()
    const store = await openStore(join(dir, 'v5.db'))
    const { items } = await store.runs.listBrief('t')
    expect(items.map((r) => [r.id, r.target, r.winner])).toEqual([
      ['b', { engine: 'vllm', engineVersion: '0.11.0', model: { name: 'm7' }, hardware: { name: 'H100 SXM' } }, { value: 41.5, improvement: null }],
      ['a', { engine: 'vllm', engineVersion: '0.11.0', model: { name: 'm7' }, hardware: { name: 'H100 SXM' } }, null],
    ])
    await store.close()
  })
})

describe('migration 7', () => {
  it('should keep tokens minted before it working, know the bootstrap token\'s origin, and refuse the others as approvers', async () => {
    const driver = await createLibsqlDriver(`file:${join(dir, 'v6.db')}`)
    await migrate(driver, MIGRATIONS.filter((m) => m.version <= 6))
    const boot = await legacyToken(driver, 'superadmin', 'default', 'bootstrap admin')
    const approver = await legacyToken(driver, 'approver', 'acme', 'reviewer')
    await driver.close()
    const store = await openStore(join(dir, 'v6.db'))
    expect(await store.tokens.verify(approver.token)).toMatchObject({ role: 'approver', mintedBy: null, expiresAt: null })
    expect(await store.tokens.get(boot.id)).toMatchObject({ mintedBy: '(store)' })
    const e = await store.registry.submit({ tenant: 'acme', name: 'k', kernelFamily: 'gemv', provider: 'human', source: '', actor: 'someone' })
    await expect(store.registry.approve('acme', e.id, approver.id)).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/minted before kerneltune recorded who mints tokens/) })
    // A fresh approver minted by the bootstrap token may approve.
    const fresh = await store.tokens.create('approver', 'acme', 'new reviewer', undefined, { mintedBy: boot.id })
    await expect(store.registry.approve('acme', e.id, fresh.info.id)).resolves.toMatchObject({ status: 'approved' })
    await store.close()
  })
})
