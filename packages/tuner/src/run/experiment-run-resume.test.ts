import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, mulberry32, type MeasurementBackend, type RepetitionMetrics } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, executeExperimentRun, executeRun, INTERRUPT, interruptedError, RUN_OWNER_LEASE_MS } from '../index.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'

/** Noisy measurements (so a repetition is never repeated by chance) and a log of which combination each call measured. */
function countingBackend(calls: string[]): MeasurementBackend {
  const rand = mulberry32(5)
  return {
    name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    async measure(request) {
      if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'cancelled')
      calls.push(JSON.stringify(request.combo))
      const reps: RepetitionMetrics[] = []
      for (let i = 0; i < request.repetitions; i++) {
        const speed = (request.combo.activation_dtype?.startsWith('fp8') ? 130 : 100) * (1 + 0.2 * (rand() - 0.5))
        reps.push({ latencyMs: 1000 / speed, throughputTps: speed })
      }
      return { backend: 'analytical', simulated: true, device: 'fixture', repetitions: reps }
    },
  }
}

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 4, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
  design: 'sequential' as const,
}

describe('a sequential design run interrupted and resumed', () => {
  it('should store each combination as it is measured, go back to queued on an interrupt, and measure only the rest when resumed', async () => {
    const store = await openStore(':memory:')
    const calls: string[] = []
    const registry = createRegistry([testEngine(), countingBackend(calls)])
    const run = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const ctl = new AbortController()
    // Interrupted once the baseline and one combination are stored (progress counts the baseline as 1).
    const first = await executeExperimentRun(run.id, { store, registry, signal: ctl.signal, onEvent: (e) => e.type === 'progress' && e.done === 2 && ctl.abort(INTERRUPT) })
    expect([first.status, first.error]).toEqual(['queued', interruptedError('sequential')])
    const before = await store.runs.combos(run.id)
    const kept = before.filter((c) => c.status !== 'pending')
    expect(kept.map((c) => c.isBaseline)).toEqual([true, false])
    const callsBefore = calls.length
    const done = await executeExperimentRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const after = await store.runs.combos(run.id)
    // What was stored before the interrupt is kept as it was: the baseline and that combination are not measured again.
    for (const k of kept) expect(after.find((c) => c.index === k.index)!.repetitions).toEqual(k.repetitions)
    const resumedCalls = calls.slice(callsBefore)
    for (const k of kept) expect(resumedCalls).not.toContain(JSON.stringify(k.combo))
    // Every other combination was measured in the resumed execution, each in one run of calls.
    const pending = before.filter((c) => c.status === 'pending')
    expect(pending.length).toBeGreaterThan(0)
    for (const c of pending) {
      expect(after.find((x) => x.index === c.index)!.status).toBe('measured')
      expect(calls.slice(0, callsBefore)).not.toContain(JSON.stringify(c.combo))
    }
    expect(after.every((c) => c.status === 'measured')).toBe(true)
    expect((done.summary as { experiment?: { design?: string } }).experiment?.design).toBe('sequential')
  })

  it('should execute a run that stored its design settings (a sweep\'s) by its design from the generic executeRun, with those settings', async () => {
    const store = await openStore(':memory:')
    const calls: string[] = []
    const registry = createRegistry([testEngine(), countingBackend(calls)])
    const planned = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const snapshot = (await store.runs.snapshot(planned.snapshotHash))!
    const combos = (await store.runs.combos(planned.id)).map((c) => ({ combo: c.combo, comboHash: c.comboHash, isBaseline: c.isBaseline }))
    const options = (planned.target as { options?: Record<string, unknown> }).options
    // As a sweep stores it: ranked by latency, 3 repetitions at most, no early stop.
    const target = { ...planned.target, options: { ...options, experiment: { metric: 'latencyMs', maxReps: 3, earlyStop: false, gate: 'regression', epsilon: 0.5 } } }
    const run = await store.runs.create({ tenant: 't', mode: planned.mode, target: target as never, snapshot, qualityGate: planned.qualityGate, backend: planned.backend, repetitions: 4, combos })
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const s = done.summary as { experiment?: { design?: string; metric?: string } }
    expect(s.experiment).toMatchObject({ design: 'sequential', metric: 'latencyMs' })
    // The stored maxReps (3), not the run's repetitions (4): the design's settings came from the run.
    for (const c of await store.runs.combos(run.id)) expect(c.repetitions).toHaveLength(3)
    await expect(executeRun((await store.runs.create({ tenant: 't', mode: planned.mode, target: { ...target, options: { ...options, experiment: { metric: 'nope' } } } as never, snapshot, qualityGate: planned.qualityGate, backend: planned.backend, repetitions: 4, combos })).id, { store, registry })).rejects.toThrow(/stored design settings are not readable/)
  })

  it('should not execute a run another process holds with a fresh heartbeat, and execute it once the holder\'s lease has run out', async () => {
    const store = await openStore(':memory:')
    const calls: string[] = []
    const registry = createRegistry([testEngine(), countingBackend(calls)])
    const run = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const now = new Date().toISOString()
    expect(await store.runs.claim(run.id, { id: 'sweep-1', pid: 4242, host: 'elsewhere', startedAt: now, heartbeatAt: now }, null)).toBe(true)
    await expect(executeExperimentRun(run.id, { store, registry })).rejects.toThrow(/being measured by pid 4242 on elsewhere/)
    // Nothing was measured or written: the holder's run is as it left it.
    expect([calls.length, (await store.runs.require(null, run.id)).status]).toEqual([0, 'queued'])
    // Past the lease the holder is taken for gone.
    const stale = new Date(Date.now() - RUN_OWNER_LEASE_MS - 1000).toISOString()
    await store.runs.heartbeat(run.id, { id: 'sweep-1', pid: 4242, host: 'elsewhere', startedAt: now, heartbeatAt: stale })
    expect((await executeExperimentRun(run.id, { store, registry })).status).toBe('succeeded')
  })
})
