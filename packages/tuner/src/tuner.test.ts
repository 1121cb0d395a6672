import { describe, it, expect } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { applyRun, createRun, executeRun, randomStrategy, runTune, startTune, type RunEvent, type RunSummary } from './index.ts'
import { HARDWARE, MODEL, testBackend, testEngine } from './test-fixtures.ts'

const setup = async () => {
  const store = await openStore(':memory:')
  const registry = createRegistry([testEngine(), testBackend(), randomStrategy()])
  return { store, registry, catalog: createCatalog() }
}
const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

describe('tier 1 runs', () => {
  it('should measure every combination, label simulated results and write a summary', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, request, { catalog, registry, tenant: 't1' })
    expect(run.status).toBe('queued')
    const events: RunEvent[] = []
    const done = await executeRun(run.id, { store, registry, onEvent: (e) => events.push(e) })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    expect(combos.length).toBe(done.progress.total)
    expect(combos.every((c) => c.status === 'measured' && c.simulated)).toBe(true)
    expect(combos.filter((c) => c.isBaseline)).toHaveLength(1)
    const s = done.summary as unknown as RunSummary
    expect(s.simulated).toBe(true)
    expect(s.winner?.combo.activation_dtype).toMatch(/^fp8/)
    expect(s.sensitivity.activation_dtype!.sensitive).toBe(true)
    expect(s.sensitivity.attention_backend!.sensitive).toBe(false)
    // A prediction repeated: no spread, which the dashboard must not draw as a noise band.
    expect(s.noise).toMatchObject({ latencyMs: { n: 3, halfWidth: 0, cv: 0 }, throughputTps: { n: 3, halfWidth: 0, cv: 0, level: 0.95 } })
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'succeeded' })
    expect(events.filter((e) => e.type === 'combo.measured')).toHaveLength(combos.length)
  })

  it('should let timers and I/O run between combinations (so SSE progress reaches clients while a simulated run computes)', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, request, { catalog, registry, tenant: 't1' })
    // A timer armed at each progress event stands for a pending socket write: it can only fire
    // if the loop gives the event loop a turn before the run ends.
    const log: string[] = []
    const done = await executeRun(run.id, { store, registry, onEvent: (e) => {
      if (e.type === 'progress') setTimeout(() => log.push(`timer after ${e.done}`), 0)
      if (e.type === 'run.finished') log.push('finished')
    } })
    expect(done.progress.total).toBeGreaterThan(2)
    const finished = log.indexOf('finished')
    expect(log.slice(0, finished)).toEqual(Array.from({ length: done.progress.total }, (_, i) => `timer after ${i + 1}`))
  })

  it('should answer a second identical run from the cache, and not after a flush', async () => {
    const { store, registry, catalog } = await setup()
    const a = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(a.id, { store, registry })
    const b = await createRun(store, request, { catalog, registry, tenant: 't1' })
    let hits = 0
    await executeRun(b.id, { store, registry, observer: { cacheHit: () => hits++ } })
    expect((await store.runs.combos(b.id)).every((c) => c.cached)).toBe(true)
    expect(hits).toBe(a.progress.total)
    await store.cache.flush({ tenant: 't1' })
    const c = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(c.id, { store, registry })
    expect((await store.runs.combos(c.id)).some((x) => x.cached)).toBe(false)
  })

  it('should refuse unknown engines, backends and dimension values with every problem listed', async () => {
    const { store, registry, catalog } = await setup()
    await expect(createRun(store, { ...request, restrict: { nope: ['x'] } }, { catalog, registry, tenant: 't' })).rejects.toMatchObject({ code: 'INVALID_INPUT' })
    await expect(createRun(store, { ...request, backend: 'nope' }, { catalog, registry, tenant: 't' })).rejects.toMatchObject({ code: 'INVALID_INPUT' })
    await expect(createRun(store, { ...request, repetitions: 1 }, { catalog, registry, tenant: 't' })).rejects.toMatchObject({ code: 'INVALID_INPUT' })
  })

  it('should stop at cancellation and keep what was measured', async () => {
    const { store, catalog } = await setup()
    const registry = createRegistry([testEngine(), testBackend({ delayMs: 5 })])
    const run = await createRun(store, request, { catalog, registry, tenant: 't' })
    const ac = new AbortController()
    const done = await executeRun(run.id, { store, registry, signal: ac.signal, onEvent: (e) => e.type === 'combo.measured' && ac.abort() })
    expect(done.status).toBe('cancelled')
    expect((await store.runs.combos(run.id)).filter((c) => c.status === 'measured')).toHaveLength(1)
  })

  it('should translate the winner on apply', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, request, { catalog, registry, tenant: 't' })
    await executeRun(run.id, { store, registry })
    const dep = await store.deployments.create({ tenant: 't', name: 'prod', engine: 'vllm', engineVersion: '0.6.0' })
    const applied = await applyRun(store, registry, 't', run.id, { deploymentId: dep.id, force: true })
    expect(applied.translation.argv.length).toBeGreaterThan(0)
    expect(applied.deployment?.currentCombo).toEqual(applied.combo)
  })
})

describe('tier 2 tune sessions', () => {
  it('should drop insensitive dimensions with evidence and resume without losing or repeating a trial', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, { ...request, restrict: { ...request.restrict, matmul_path: ['cublas', 'cutlass'] } }, { catalog, registry, tenant: 't' })
    await executeRun(run.id, { store, registry })
    const session = await startTune(store, { runId: run.id, budget: { trials: 6 }, strategy: 'tuner-random' }, { catalog, registry, tenant: 't' })
    const narrowing = session.narrowing as { kept: Record<string, string[]>; dropped: Record<string, { evidence: { reason: string } }> }
    expect(Object.keys(narrowing.kept)).toEqual(['activation_dtype'])
    expect(narrowing.dropped.attention_backend!.evidence.reason).toMatch(/matched pairs/)
    // Pause after the second trial, as a shutdown would.
    const ac = new AbortController()
    const paused = await runTune(session.id, { store, registry, catalog, signal: ac.signal, onEvent: (e) => e.type === 'trial' && e.index === 1 && ac.abort('pause') })
    expect(paused.status).toBe('paused')
    expect(paused.trialsDone).toBe(2)
    const done = await runTune(session.id, { store, registry, catalog })
    const trials = await store.tune.trials(session.id)
    expect(trials.map((t) => t.index)).toEqual(trials.map((_, i) => i))
    // activation_dtype has 4 catalog levels: the space runs out before the budget.
    expect(done.status).toBe('completed')
    expect(new Set(trials.map((t) => JSON.stringify(t.config))).size).toBe(trials.length)
    expect(done.best?.config.activation_dtype).toMatch(/^fp8/)
  })
})
