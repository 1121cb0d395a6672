/**
 * Latency objectives in runs and tune sessions: a serving backend's requests are stored with each
 * repetition, each combination is judged by the objectives (feasible, violations, goodput), an
 * infeasible one never wins, the defaults missing one is said, and in a tune session a trial that
 * ran but missed an objective is labelled infeasible, apart from one that failed, and is never
 * the best.
 */
import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, parseWith, type Combo, type MeasurementBackend, type SearchObservation, type SearchStrategyPlugin, type ServedRequest } from '@kerneltune/core'
import { randomSearchStrategy } from '@kerneltune/bayesian-optimizer'
import { openStore } from '@kerneltune/store'
import { resolveObjectives } from '@kerneltune/serving'
import { createRun, executeRun, pairedBeats, RunRequestSchema, runRecordLines, runTune, startTune, TuneRequestSchema, type RunSummary } from '../index.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'

/**
 * A serving stand-in: fp8 with cutlass has the most tokens/s (TPOT 1 ms) but answers its first
 * token late (TTFT 350 ms); fp8 with cublas starts in 200 ms; bf16 in 400 ms, and is slow.
 * Aggressive fusion does not start (a hidden constraint).
 */
const shape = (c: Combo) => {
  const fp8 = c.activation_dtype === 'fp8_e4m3'
  const cutlass = c.matmul_path === 'cutlass'
  return fp8 ? (cutlass ? { ttftMs: 350, tpotMs: 1 } : { ttftMs: 200, tpotMs: 12 }) : { ttftMs: 400, tpotMs: 12 }
}
const failsToStart = (c: Combo) => c.fusion_strategy === 'aggressive'

function servingBackend(): MeasurementBackend {
  return {
    name: 'fakeserve', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    async measure(request) {
      if (failsToStart(request.combo)) throw new KerneltuneError('MEASUREMENT_FAILED', 'llama-server exited (code 1) before it was ready', { details: { errorLines: ['error: fusion'] } })
      const { ttftMs, tpotMs } = shape(request.combo)
      const repetitions = Array.from({ length: request.repetitions }, (_, rep) => {
        let t = 0
        const requests: ServedRequest[] = Array.from({ length: 4 }, (_, i) => {
          const jitter = 1 + 0.01 * ((rep + i) % 3)
          const e2eMs = (ttftMs + 15 * tpotMs) * jitter
          const r = { ok: true, startMs: t, e2eMs, ttftMs: ttftMs * jitter, outputTokens: 16, itlMs: Array.from({ length: 15 }, () => tpotMs * jitter) }
          t += e2eMs
          return r
        })
        const durationS = t / 1000
        return { latencyMs: t / 4, throughputTps: 64 / durationS, serving: { durationS, requests } }
      })
      return { backend: 'fakeserve', simulated: true, device: 'serving fixture', repetitions }
    },
  }
}

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'fakeserve', repetitions: 2, earlyStop: false, useCache: false,
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], activation_dtype: ['bf16', 'fp8_e4m3'], fusion_strategy: ['none', 'aggressive'], cuda_graph: ['per-shape'] },
  slo: { ttft_p99_ms: 300 },
  objective: 'goodput',
}

async function setup() {
  const store = await openStore(':memory:')
  const registry = createRegistry([testEngine(), servingBackend(), randomSearchStrategy()])
  const catalog = createCatalog()
  const run = await executeRun((await createRun(store, request, { catalog, registry, tenant: 't' })).id, { store, registry })
  return { store, registry, catalog, run }
}

describe('objectives in a run', () => {
  it('should refuse an unknown objective name with the accepted names, and goodput without objectives', () => {
    const bad = RunRequestSchema.safeParse({ ...request, slo: { ttft_p98_ms: 300 } })
    expect(bad.success).toBe(false)
    expect(JSON.stringify(bad.error?.issues)).toMatch(/unknown latency objective 'ttft_p98_ms'; accepted: ttft_mean_ms, .*e2e_p99_ms/)
    expect(bad.error?.issues.map((i) => i.path)).toEqual([['slo']])
    const goodput = TuneRequestSchema.safeParse({ runId: 'r', budget: { trials: 2 }, objective: 'goodput' })
    expect(JSON.stringify(goodput.error?.issues)).toMatch(/goodput objective counts the requests/)
    expect(goodput.error?.issues.map((i) => i.path)).toEqual([['objective']])
    expect(() => parseWith(RunRequestSchema, { ...request, objective: 'fastest' }, 'run request')).toThrow(/unknown objective 'fastest'; accepted: goodput, outputTokensPerSecond/)
  })

  it('should judge each combination by the objectives, never choose an infeasible one, and say the defaults miss them', async () => {
    const { store, run } = await setup()
    expect(run.status).toBe('succeeded')
    const s = run.summary as unknown as RunSummary
    const o = s.objectives!
    expect(o.objective).toBe('goodput')
    expect(o.slo).toEqual([{ name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 300 }])
    const combos = await store.runs.combos(run.id)
    const byShape = (dtype: string, path: string) => o.candidates.find((c) => c.combo.activation_dtype === dtype && c.combo.matmul_path === path && c.combo.fusion_strategy === 'none')!
    // The fastest by tokens/s misses TTFT: infeasible, with the objective it missed and by how much.
    const fastest = byShape('fp8_e4m3', 'cutlass')
    expect(fastest.feasible).toBe(false)
    expect(fastest.violations).toEqual([{ metric: 'ttft_p99_ms', limit: 300, value: expect.any(Number) }])
    expect(fastest.violations[0]!.value).toBeGreaterThan(350)
    expect(fastest.goodput).toEqual({ requestsPerSecond: 0, met: 0 })
    const good = byShape('fp8_e4m3', 'cublas')
    expect(good.feasible).toBe(true)
    expect(good.goodput!.met).toBe(8)
    expect(o.decision.defaultsFeasible).toBe(false)
    expect(o.decision.reason).toMatch(/the defaults miss the objectives; combination \d+ meets them/)
    expect(o.decision.winner).toBe(good.index)
    expect(s.winner?.index).toBe(good.index)
    expect(s.winner?.value).toBeCloseTo(good.goodput!.requestsPerSecond, 9)
    // Failed combinations (aggressive fusion) are failed, not judged.
    expect(combos.filter((c) => c.status === 'failed').length).toBe(4)
    expect(o.candidates.length).toBe(4)
    expect(o.pareto).toContain(good.index)
    expect(o.pareto).not.toContain(fastest.index)
    // Every request is kept: --records can recompute every figure.
    const lines = runRecordLines(combos)
    expect(lines.length).toBe(4 * 2 * 4)
    expect(lines[0]).toMatchObject({ candidate: expect.any(Number), ok: true, ttftMs: expect.any(Number), tpotMs: expect.any(Number), e2eMs: expect.any(Number), outputTokens: 16, repetition: 1 })
  })
})

describe('objectives in an interleaved run', () => {
  it('should let the objectives choose, not the design\'s throughput winner, which misses TTFT', async () => {
    const store = await openStore(':memory:')
    const registry = createRegistry([testEngine(), servingBackend()])
    const catalog = createCatalog()
    const restrict = { ...request.restrict, fusion_strategy: ['none'] }
    const run = await executeRun((await createRun(store, { ...request, restrict, design: 'interleaved', rounds: 3 }, { catalog, registry, tenant: 't' })).id, { store, registry })
    expect(run.status).toBe('succeeded')
    const s = run.summary as unknown as RunSummary
    const good = s.objectives!.candidates.find((c) => c.combo.activation_dtype === 'fp8_e4m3' && c.combo.matmul_path === 'cublas')!
    expect(s.winner?.index).toBe(good.index)
    expect(s.objectives!.candidates.find((c) => c.index === s.winner!.index)!.feasible).toBe(true)
  })
})

describe('objectives in a tune session', () => {
  it('should label a trial that missed an objective infeasible, apart from a failed one, and never make it the best', async () => {
    const { store, registry, catalog, run } = await setup()
    const s = await startTune(store, { runId: run.id, budget: { trials: 8 }, strategy: 'random', seed: 3, keep: ['matmul_path', 'activation_dtype', 'fusion_strategy'], repetitions: 2 }, { catalog, registry, tenant: 't' })
    // The session takes the run's objectives when its request states none.
    expect(s.narrowing).toMatchObject({ slo: { ttft_p99_ms: 300 }, objective: 'goodput' })
    const done = await runTune(s.id, { store, registry, catalog })
    expect(done.status).toBe('completed')
    const trials = await store.tune.trials(s.id)
    expect(trials.map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    for (const t of trials) {
      // Each trial's label follows from what the fixture does with its configuration.
      const expected = failsToStart(t.config) ? 'failed' : shape(t.config).ttftMs > 300 ? 'infeasible' : 'ok'
      expect(t.outcome).toBe(expected)
      if (expected === 'failed') expect(t.metrics).toMatchObject({ failure: { kind: 'start' } })
      if (expected === 'infeasible') {
        expect(t.value).toBe(0)
        expect(t.metrics).toMatchObject({ feasible: false, objective: 'goodput', violations: [{ metric: 'ttft_p99_ms', limit: 300 }] })
      }
    }
    expect(new Set(trials.map((t) => t.outcome))).toEqual(new Set(['ok', 'infeasible', 'failed']))
    const ok = trials.filter((t) => t.outcome === 'ok').sort((x, y) => y.value! - x.value!)[0]!
    expect(done.best?.trial).toBe(ok.index)
    expect(done.best?.value).toBe(ok.value)
  })

  it('should not take an infeasible trial for the best even when its objective value is higher', async () => {
    const { store, registry, catalog, run } = await setup()
    // Objective: output tokens/s, where fp8 + cutlass is the fastest but misses TTFT.
    // The whole kept space (the strategy stops when every configuration has been tried).
    const s = await startTune(store, { runId: run.id, budget: { trials: 100 }, strategy: 'random', seed: 5, keep: ['matmul_path', 'activation_dtype', 'fusion_strategy'], slo: { ttft_p99_ms: 300 }, objective: 'outputTokensPerSecond' }, { catalog, registry, tenant: 't' })
    const done = await runTune(s.id, { store, registry, catalog })
    const trials = await store.tune.trials(s.id)
    const fastest = trials.find((t) => t.config.activation_dtype === 'fp8_e4m3' && t.config.matmul_path === 'cutlass' && !failsToStart(t.config))!
    expect(fastest.outcome).toBe('infeasible')
    expect(fastest.value!).toBeGreaterThan(done.best!.value)
    expect(trials.find((t) => t.index === done.best!.trial)?.outcome).toBe('ok')
  })

  it('should tell the strategy an infeasible trial as a failure, as it tells a failed one, and a feasible one by its objective value', async () => {
    const { store, registry, catalog, run } = await setup()
    const told: SearchObservation[] = []
    const inner = registry.get('search-strategy', 'random')
    const spy: SearchStrategyPlugin = {
      ...inner, name: 'spy',
      async create(space, options) {
        const s = await inner.create(space, options)
        const tell = s.tell.bind(s)
        s.tell = (o) => (told.push(o), tell(o))
        return s
      },
      restore: inner.restore!,
    }
    registry.register(spy)
    const s = await startTune(store, { runId: run.id, budget: { trials: 8 }, strategy: 'spy', seed: 3, keep: ['matmul_path', 'activation_dtype', 'fusion_strategy'] }, { catalog, registry, tenant: 't' })
    await runTune(s.id, { store, registry, catalog })
    const trials = await store.tune.trials(s.id)
    expect(told).toHaveLength(8)
    for (const [i, t] of trials.entries()) {
      // Strategies minimise: goodput is told negated.
      if (t.outcome === 'ok') expect(told[i]).toMatchObject({ value: -t.value! })
      else expect(told[i]).toMatchObject({ failed: true })
    }
  })
})

describe('the paired rule of interleaved runs under objectives (pairedBeats)', () => {
  const o = resolveObjectives({ objective: 'requestThroughput' })
  // Round by round: the candidate beats the defaults in 8 of 8 rounds by a little, or by a lot in one round and loses the rest.
  const defaults = [10, 11, 9, 10, 12, 10, 11, 9]
  const steady = defaults.map((x) => x + 1)
  const lucky = [60, 10, 8, 9, 11, 9, 10, 8]
  it('should crown a candidate that wins every round, and not one whose pooled value rests on one lucky round', () => {
    const beats = pairedBeats([defaults, steady, lucky], 0, o)
    expect(beats(1)).toBe(true)
    // lucky's mean (15.6) is above the defaults' (10.25), yet it loses 7 of 8 rounds.
    expect(lucky.reduce((a, b) => a + b) / 8).toBeGreaterThan(defaults.reduce((a, b) => a + b) / 8)
    expect(beats(2)).toBe(false)
  })
  it('should read a latency objective the other way round, and refuse to decide on fewer than two rounds', () => {
    const lat = resolveObjectives({ slo: { e2e_p99_ms: 1000 }, objective: 'e2e_p99_ms' })
    expect(pairedBeats([defaults, steady], 0, lat)(1)).toBe(false)
    expect(pairedBeats([steady, defaults], 0, lat)(1)).toBe(true)
    expect(pairedBeats([[10], [20]], 0, o)(1)).toBe(false)
  })
})
