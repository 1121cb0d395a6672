/**
 * repetitionObjectives: an in-process sweep's repetitions (one request each) judged by latency
 * objectives, with the run's one verdict over that evidence: a faster decode that meets the
 * objectives and beat the defaults significantly wins; one that misses an objective, or whose
 * speed-up was not significant, does not; defaults that miss them lose to a candidate that meets them.
 */
import { describe, expect, it } from 'vitest'
import { parseSlo } from '@kerneltune/serving'
import { repetitionObjectives, repsAsRequests, type InProcessArm } from '../index.ts'

const reps = (decodeTps: number, ttftMs: number, n = 4) => Array.from({ length: n }, (_, i) => ({ decodeTps: decodeTps * (1 + i * 0.01), ttftMs: ttftMs * (1 + i * 0.01) }))
const slo = parseSlo('ttft_p99_ms=1000,tpot_p99_ms=200')
const arms = (o: { candidateTtft?: number; beats?: boolean; baselineTtft?: number } = {}): InProcessArm[] => [
  { combo: {}, reps: reps(100, o.baselineTtft ?? 15.8), failed: false, beatsDefaults: false },
  { combo: { threads: '1' }, reps: reps(553, o.candidateTtft ?? 28.1), failed: false, beatsDefaults: o.beats ?? true },
  { combo: { threads: '2' }, reps: [], failed: true, beatsDefaults: false },
]

describe('repetitionObjectives', () => {
  it('should name the faster candidate that meets the objectives and beat the defaults, by the one verdict function', () => {
    const r = repetitionObjectives(arms(), slo, 16)
    expect(r.decision).toMatchObject({ winner: 1, defaultsFeasible: true })
    expect(r.verdict).toMatchObject({ kind: 'winner', index: 1, decidedBy: 'objectives' })
    expect(r.evaluations[2]!.feasible).toBe(false)
    expect(r.evaluations[2]!.violations[0]).toEqual({ metric: 'failed_requests', limit: 0, value: 1 })
    expect(r.verdict.figures.map((f) => f.label)).toContain('#1 against the defaults on outputTokensPerSecond')
  })

  it('should keep the defaults when the faster candidate misses an objective or its speed-up is not significant', () => {
    const slow = repetitionObjectives(arms({ candidateTtft: 1500 }), slo, 16)
    expect(slow.verdict).toMatchObject({ kind: 'keep-defaults', index: null })
    expect(slow.evaluations[1]!.violations[0]).toMatchObject({ metric: 'ttft_p99_ms', limit: 1000 })
    expect(repetitionObjectives(arms({ beats: false }), slo, 16).verdict.index).toBeNull()
  })

  it('should take the candidate that meets the objectives when the defaults miss them', () => {
    const r = repetitionObjectives(arms({ baselineTtft: 2000 }), slo, 16)
    expect(r.decision).toMatchObject({ winner: 1, defaultsFeasible: false })
    expect(r.verdict).toMatchObject({ kind: 'winner', index: 1 })
    expect(r.verdict.headline).toMatch(/#1 meets the objectives and the defaults do not/)
  })

  it('should say no verdict when nothing meets the objectives, the defaults included', () => {
    const r = repetitionObjectives(arms({ baselineTtft: 2000, candidateTtft: 2000 }), slo, 16)
    expect(r.verdict).toMatchObject({ kind: 'none', index: null })
  })

  it('should read each repetition as one request: TPOT is 1000 / its decode rate', () => {
    const m = repsAsRequests([{ decodeTps: 50, ttftMs: 10 }, { decodeTps: 100, ttftMs: 20 }], 5, false)
    expect(m.tpotMs.mean).toBe(15)
    expect(m.e2eMs.p50).toBe((10 + 4 * 20 + 20 + 4 * 10) / 2)
    expect(m.outputTokensPerSecond).toBe(75)
  })
})
