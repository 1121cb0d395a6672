import { describe, expect, it } from 'vitest'
import type { Combo } from '@kerneltune/core'
import { parseObjective, parseSlo, type RequestRecord } from '@kerneltune/serving'
import type { LevelResult, SessionResult } from '@kerneltune/serving/node'
import { assessSweep, createRunCollector, sweepObjectivesOutput } from './sweep-objectives.ts'

/** One load run: `n` requests of 5 tokens with the given TTFT and token gap, over `durationS`. */
function run(n: number, ttftMs: number, gapMs: number, durationS = 1): LevelResult {
  const records: RequestRecord[] = Array.from({ length: n }, (_, i) => ({ ok: true, startMs: i, ttftMs, itlMs: [gapMs, gapMs, gapMs, gapMs], e2eMs: ttftMs + 4 * gapMs, outputTokens: 5, tokenSource: 'usage' }))
  return { records, metrics: { durationS } } as unknown as LevelResult
}
const session = (...levels: LevelResult[]) => ({ levels }) as unknown as SessionResult

const defaults: Combo = {}
const fast: Combo = { threads: '1' }
const slowFirst: Combo = { flash_attn: 'off' }

/** Eight rounds: the defaults 4 req/s; `fast` 6 req/s at TTFT 80 ms; `slowFirst` 9 req/s but TTFT 900 ms. */
function collector(rounds = 8) {
  const c = createRunCollector()
  for (let k = 0; k < rounds; k++) {
    c.onSession(session(run(4 + (k % 2), 50, 10)), { combo: defaults })
    c.onSession(session(run(6 + (k % 2), 80, 10)), { combo: fast })
    c.onSession(session(run(9, 900, 10)), { combo: slowFirst })
  }
  return c
}
const combos = [{ combo: fast }, { combo: slowFirst }]
const o = { slo: parseSlo('ttft_p99_ms=500,tpot_p99_ms=50'), objective: parseObjective('goodput') }

describe('sweep objectives', () => {
  it('should choose the best feasible candidate, never the infeasible one with more throughput, and say why', async () => {
    const s = await assessSweep(collector(), defaults, combos, o, true, '/m.gguf')
    const a = s.assessment
    expect(a.candidates.map((c) => c.feasible)).toEqual([true, true, false])
    expect(a.candidates[2]!.violations).toEqual([{ metric: 'ttft_p99_ms', limit: 500, value: 900 }])
    // Goodput pools every round: fast met 52 requests in 8 s.
    expect(a.candidates[1]!.goodput).toEqual({ requestsPerSecond: 52 / 8, met: 52 })
    expect(a.candidates[2]!.goodput).toEqual({ requestsPerSecond: 0, met: 0 })
    expect(s.winner).toMatchObject({ candidate: 1, combo: fast })
    expect(s.winner!.llamaServerArgv.join(' ')).toMatch(/--threads 1/)
    expect(s.test).toMatch(/sign-flip test on the per-round differences/)
    // Throughput against TTFT p99: the defaults are fastest to first token, slowFirst has the most output, fast lies between.
    expect(a.pareto).toEqual([0, 1])
    expect(s.records).toHaveLength(8 * (4.5 + 6.5 + 9))
    expect(s.records[0]).toMatchObject({ candidate: 0, round: 1, ok: true, ttftMs: 50, tpotMs: 10, outputTokens: 5 })
  })

  it('should keep the defaults when the paired test cannot decide (two rounds), but not when the runs are unpaired', async () => {
    expect((await assessSweep(collector(2), defaults, combos, o, true, '/m.gguf')).winner).toBeUndefined()
    expect((await assessSweep(collector(2), defaults, combos, o, false, '/m.gguf')).winner?.candidate).toBe(1)
  })

  it('should say plainly that the defaults miss the objectives, and choose a candidate that meets them', async () => {
    const tight = { slo: parseSlo('ttft_p99_ms=60'), objective: parseObjective('goodput') }
    const c = createRunCollector()
    for (let k = 0; k < 8; k++) {
      c.onSession(session(run(4, 70, 10)), { combo: defaults })
      c.onSession(session(run(3, 40, 10)), { combo: fast })
      c.onSession(session(run(9, 900, 10)), { combo: slowFirst })
    }
    const s = await assessSweep(c, defaults, combos, tight, true, '/m.gguf')
    const out = sweepObjectivesOutput({ baseline: { combo: defaults }, combos, winner: { combo: slowFirst } }, tight, s, undefined)
    expect(out.hasWinner).toBe(true)
    expect(out.json.decision).toMatchObject({ by: 'objectives', winner: 1, defaultsFeasible: false })
    expect(out.json.baseline).toMatchObject({ candidate: 0, feasible: false, violations: [{ metric: 'ttft_p99_ms', limit: 60, value: 70 }] })
    expect(out.json.winner).toMatchObject({ combo: fast, candidate: 1, feasible: true })
    expect(out.json.gateWinner).toEqual(slowFirst)
    expect(out.text).toMatch(/the defaults miss the objectives: the winner must meet them/)
    expect(out.text).toMatch(/objectives: TTFT p99 ≤ 60 ms; maximise goodput/)
    expect(out.text).not.toMatch(/sign-flip/)
  })
})
