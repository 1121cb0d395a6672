/**
 * recordMeasuredRun: load levels measured outside a design (bench serve, bench capacity) stored as
 * a run whose one verdict is the tuner's, decided from the objectives' evidence as stored: no
 * level is compared with defaults, a level that served nothing is failed, and the verdict names a
 * level only when one meets the objectives.
 */
import { describe, expect, it } from 'vitest'
import { openStore } from '@kerneltune/store'
import { resolveObjectives } from '@kerneltune/serving'
import { HardwareSpecSchema, ModelSpecSchema, parseWith, type RepetitionMetrics, type ServedRequest } from '@kerneltune/core'
import { recordMeasuredRun, runVerdict, type MeasuredRun, type RunSummary } from '../index.ts'
import { HARDWARE, MODEL } from '../test-fixtures.ts'

/** One repetition of `n` requests, each with this TTFT, 8 tokens at 2 ms apart. */
function rep(ttftMs: number, n = 4): RepetitionMetrics {
  let t = 0
  const requests: ServedRequest[] = Array.from({ length: n }, () => {
    const e2eMs = ttftMs + 7 * 2
    const r = { ok: true, startMs: t, e2eMs, ttftMs, outputTokens: 8, itlMs: Array.from({ length: 7 }, () => 2) }
    t += e2eMs
    return r
  })
  return { latencyMs: t / n, throughputTps: (8 * n) / (t / 1000), serving: { durationS: t / 1000, requests } }
}

const base = (levels: MeasuredRun['levels'], slo: string): MeasuredRun => ({
  command: 'serve', model: parseWith(ModelSpecSchema, MODEL, 'model'), hardware: parseWith(HardwareSpecSchema, HARDWARE, 'hardware'), engine: 'test-engine', engineVersion: '1', settings: { threads: '2' },
  server: { argv: ['srv', '--port', '1'], version: 'test 1', baseUrl: 'http://127.0.0.1:1', launched: true },
  workload: { promptTokens: 8, generatedTokens: 8 }, objectives: resolveObjectives({ slo }), levels, device: 'test device', durationMs: 10,
})

describe('recordMeasuredRun', () => {
  it('should store each level as a combination, no baseline, and one verdict that names the level meeting the objectives', async () => {
    const store = await openStore(':memory:')
    try {
      const id = await recordMeasuredRun(store, base([
        { combo: { concurrency: '1' }, repetitions: [rep(10)], served: true },
        { combo: { concurrency: '4' }, repetitions: [rep(500)], served: true },
        { combo: { concurrency: '8' }, repetitions: [], served: false },
      ], 'ttft_p99_ms=100'))
      const run = await store.runs.require(null, id)
      const combos = await store.runs.combos(id)
      expect(run.status).toBe('succeeded')
      expect(combos.map((c) => [c.combo, c.isBaseline, c.status])).toEqual([[{ concurrency: '1' }, false, 'measured'], [{ concurrency: '4' }, false, 'measured'], [{ concurrency: '8' }, false, 'failed']])
      const s = run.summary as unknown as RunSummary & { bench: { note: string } }
      expect(s.objectives?.candidates.map((c) => [c.index, c.feasible])).toEqual([[0, true], [1, false]])
      expect(s.objectives?.decision).toMatchObject({ winner: 0, defaultsFeasible: null, test: 'none: the levels are loads, not candidates against defaults' })
      expect(s.objectives?.decision.reason).toMatch(/no defaults compared\): #0 is the best level/)
      // The stored verdict is the one function's, over the evidence as stored: reading it again says the same.
      expect(s.verdict).toEqual(runVerdict(s))
      expect(s.verdict?.decidedBy).toBe('objectives')
      expect(s.bench.note).toMatch(/^kerneltune bench serve: each combination is a load level on one server configuration \(\{"threads":"2"\}\)/)
      expect(run.target.options).toMatchObject({ bench: { command: 'serve', settings: { threads: '2' } }, slo: { ttft_p99_ms: 100 } })
    } finally {
      await store.close()
    }
  })

  it('should name no level when none meets the objectives, and fail a run in which nothing was served', async () => {
    const store = await openStore(':memory:')
    try {
      const none = await store.runs.require(null, await recordMeasuredRun(store, base([{ combo: { concurrency: '1' }, repetitions: [rep(500)], served: true }], 'ttft_p99_ms=100')))
      const s = none.summary as unknown as RunSummary
      expect(s.objectives?.decision.winner).toBeNull()
      expect(s.verdict?.index).toBeNull()
      const failed = await store.runs.require(null, await recordMeasuredRun(store, { ...base([{ combo: { concurrency: '1' }, repetitions: [], served: false }], 'ttft_p99_ms=100'), command: 'capacity', endpoint: 'http://elsewhere:8080' }))
      expect(failed.status).toBe('failed')
      expect((failed.summary as { bench: { note: string } }).bench.note).toMatch(/capacity search.*the server at http:\/\/elsewhere:8080 may run on other hardware/)
    } finally {
      await store.close()
    }
  })
})
