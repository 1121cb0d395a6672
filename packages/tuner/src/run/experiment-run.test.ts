import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, mulberry32, type MeasurementBackend, type RepetitionMetrics } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, executeExperimentRun, executeRun, type InterleavedSummary, type RunEvent, type RunSummary } from '../index.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'

/**
 * fp8 is 30% faster; every measurement carries 10% noise and a load that drifts up over time, so
 * the rounds must pair to see it. Records the order of its measurements.
 */
function driftingBackend(calls: string[] = []): MeasurementBackend {
  const rand = mulberry32(11)
  let t = 0
  return {
    name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    async measure(request) {
      calls.push(JSON.stringify(request.combo))
      if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'cancelled')
      const reps: RepetitionMetrics[] = []
      for (let i = 0; i < request.repetitions; i++) {
        t++
        const speed = (request.combo.activation_dtype?.startsWith('fp8') ? 130 : 100) * (1 + 0.1 * (rand() - 0.5)) / (1 + t / 50)
        reps.push({ latencyMs: 1000 / speed, throughputTps: speed })
      }
      return { backend: 'analytical', simulated: true, device: 'drifting fixture', repetitions: reps }
    },
  }
}

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
  design: 'interleaved' as const, rounds: 8, seed: 3, slo: { ttft_p99_ms: 500 }, objective: 'goodput',
}

describe('a run with the interleaved design', () => {
  it('should measure every combination once per round beside the baseline and an A/A arm, and pick the winner by the paired test', async () => {
    const store = await openStore(':memory:')
    const calls: string[] = []
    const registry = createRegistry([testEngine(), driftingBackend(calls)])
    const run = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    // The objectives travel with the run, opaque to the tuner.
    expect((run.target as { options?: Record<string, unknown> }).options).toMatchObject({ design: 'interleaved', rounds: 8, seed: 3, slo: { ttft_p99_ms: 500 }, objective: 'goodput' })
    const events: RunEvent[] = []
    const done = await executeRun(run.id, { store, registry, worker: 'w-1', onEvent: (e) => events.push(e) })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    const arms = combos.length + 1
    // Every arm once per round (plus one warm-up each on its first visit): no sequential block of repetitions.
    expect(calls.length).toBe(8 * arms)
    for (const c of combos) expect(c.repetitions).toHaveLength(8)
    const s = done.summary as unknown as RunSummary & { experiment: InterleavedSummary }
    expect(s.experiment).toMatchObject({ design: 'interleaved', rounds: 8, seed: 3, worker: 'w-1', device: 'drifting fixture' })
    expect(s.experiment.order).toHaveLength(8)
    for (const round of s.experiment.order) expect(round.filter((a) => a === 'baseline' || a === 'aa')).toHaveLength(2)
    expect(s.experiment.aa.declaredWinner).toBe(false)
    expect(s.experiment.winner?.combo.activation_dtype).toMatch(/^fp8/)
    expect(s.winner?.combo.activation_dtype).toMatch(/^fp8/)
    expect(s.experiment.winner!.improvement).toBeGreaterThan(0.15)
    // The run stores one verdict, the design's winner, from the same evidence (8 rounds can reach p < 0.05).
    expect(s.verdict).toMatchObject({ kind: 'winner', index: s.experiment.winner!.index, decidedBy: 'design', power: { rounds: 8, canDecide: true } })
    expect(s.verdict!.headline).toMatch(new RegExp(`^Winner: #${s.experiment.winner!.index}, throughputTps [0-9.]+ tokens/s`))
    // The replicate noise per combination (variance of the log ratio over rounds) is stored for Tier 2.
    expect(Object.keys(s.experiment.replicateVariance)).toHaveLength(combos.length - 1)
    const fp8 = combos.find((c) => !c.isBaseline && c.combo.activation_dtype?.startsWith('fp8'))!
    expect(fp8.comparison).toMatchObject({ design: 'interleaved', metric: 'throughputTps', verdict: 'better' })
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'succeeded' })
    expect(events.filter((e) => e.type === 'progress').length).toBe(8 * arms)
  })

  it('should let the backend prepare every arm before round 1 and store each round\'s duration and every launch (issue 35)', async () => {
    const store = await openStore(':memory:')
    const prepared: { engine?: string; warmups: number; combo: Record<string, string> }[] = []
    const calls: string[] = []
    const inner = driftingBackend()
    const backend: MeasurementBackend = {
      ...inner,
      measure: (r) => (calls.push('measure'), inner.measure(r)),
      async prepare(requests) {
        calls.push('prepare')
        for (const r of requests) prepared.push({ ...(r.engine ? { engine: r.engine } : {}), warmups: r.warmups, combo: { ...r.combo } })
        return requests.map(() => ({ ok: true, warmed: true, launch: { reason: 'pre-launch', ok: true, phases: { spawnedAt: '2026-11-27T22:00:00.000Z', readyMs: 900, warmupStartMs: 901, warmupEndMs: 1200 } } }))
      },
    }
    const registry = createRegistry([testEngine(), backend])
    const run = await createRun(store, { ...request, rounds: 3 }, { catalog: createCatalog(), registry, tenant: 't' })
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    // Every arm once (the A/A arm beside the baseline), with the run's target, before any measurement.
    expect(prepared).toHaveLength(combos.length + 1)
    expect(prepared.every((p) => p.engine === 'vllm')).toBe(true)
    expect(calls.indexOf('prepare')).toBe(0)
    expect(calls.filter((c) => c === 'prepare')).toHaveLength(1)
    const s = (done.summary as unknown as { experiment: InterleavedSummary }).experiment
    expect(s.roundSeconds).toHaveLength(3)
    expect(typeof s.prepareSeconds).toBe('number')
    expect(Object.keys(s.launches!).sort()).toEqual(['aa', 'baseline', ...combos.filter((c) => !c.isBaseline).map((c) => String(c.index))].sort())
    expect(s.launches!.baseline![0]).toMatchObject({ reason: 'pre-launch', ok: true, phases: { readyMs: 900 } })
  })

  it('should go back to the queue on a pause and measure all its rounds again when resumed', async () => {
    const store = await openStore(':memory:')
    const registry = createRegistry([testEngine(), driftingBackend()])
    const run = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const ctl = new AbortController()
    const paused = await executeRun(run.id, { store, registry, signal: ctl.signal, onEvent: (e) => e.type === 'progress' && e.done === 5 && ctl.abort('pause') })
    expect([paused.status, paused.error]).toEqual(['queued', null])
    const resumed = await executeRun(run.id, { store, registry })
    expect(resumed.status).toBe('succeeded')
    for (const c of await store.runs.combos(run.id)) expect(c.repetitions).toHaveLength(8)
  })

  it('should hand out every round\'s result, and end the rounds at the caller\'s deadline from the first one, storing the run with a verdict that says so', async () => {
    const store = await openStore(':memory:')
    const registry = createRegistry([testEngine(), driftingBackend()])
    const run = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const seen: number[] = []
    // A deadline an hour away ends nothing: every round but the last is handed out, and the budget counts from round 1.
    let final: unknown
    const done = await executeExperimentRun(run.id, { store, registry }, { deadline: Date.now() + 3_600_000, onRound: (p) => void seen.push(p.rounds), onResult: (r) => (final = r) })
    expect(done.status).toBe('succeeded')
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(final).toMatchObject({ rounds: 8, budgetEnded: false, settings: { minRounds: 0 } })
    // A deadline that has come: the first measurement (one that waits for its signal) is cancelled and dropped, no round is measured.
    const waiting: MeasurementBackend = {
      name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
      measure: (req) => new Promise((_, reject) => req.signal!.addEventListener('abort', () => reject(new KerneltuneError('CANCELLED', 'the load was cancelled')), { once: true })),
    }
    const late = await createRun(store, request, { catalog: createCatalog(), registry, tenant: 't' })
    const ended = await executeExperimentRun(late.id, { store, registry }, { backend: waiting, deadline: Date.now(), onResult: (r) => (final = r) })
    expect(final).toMatchObject({ rounds: 0, budgetEnded: true, order: [] })
    expect(final).not.toHaveProperty('winner')
    const s = ended.summary as unknown as RunSummary & { experiment: InterleavedSummary }
    expect(s.experiment).toMatchObject({ rounds: 0, winner: null })
    expect(s.experiment.verdict).toMatch(/^the time budget ended the sweep after 0 rounds, before the defaults had the 2 a comparison needs: nothing was compared; keep the defaults/)
  })
})
