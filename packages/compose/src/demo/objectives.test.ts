import { describe, expect, it } from 'vitest'
import type { SweepResult } from '@kerneltune/experiment'
import { parseSlo } from '@kerneltune/serving'
import { decideDemo, DEMO_SLO_TEXT } from './objectives.ts'

const reps = (decodeTps: number, ttftMs: number, n = 4) => Array.from({ length: n }, (_, i) => ({ decodeTps: decodeTps * (1 + i * 0.01), ttftMs: ttftMs * (1 + i * 0.01) }))

/** The issue's run: threads=1 decodes 5.5x faster, its TTFT goes from 15.8 to 28.1 ms, which the 5% regression gate forbids. */
function issueSweep(over: { candidateTtft?: number; verdict?: string; baselineTtft?: number } = {}): SweepResult {
  return {
    baseline: { combo: {}, hash: 'b', reps: reps(100, over.baselineTtft ?? 15.8) },
    combos: [
      { combo: { threads: '1' }, hash: 'c1', reps: reps(553, over.candidateTtft ?? 28.1), comparison: { decodeTps: { verdict: over.verdict ?? 'better' } } },
      { combo: { threads: '2' }, hash: 'c2', reps: [], error: 'llama.cpp refused', comparison: {} },
    ],
    winner: undefined,
    recommendedArgv: ['llama-server', '-m', '/m.gguf'],
  } as unknown as SweepResult
}

describe('the demo decides by latency objectives', () => {
  const slo = parseSlo(DEMO_SLO_TEXT)

  it('should take the 5x faster decode the regression gate refused, since both TTFTs are far within a second', async () => {
    const d = await decideDemo(issueSweep(), slo, 16, '/m.gguf')
    expect(d.decision).toMatchObject({ winner: 1, defaultsFeasible: true })
    expect(d.winner).toEqual({ threads: '1' })
    expect(d.recommendedArgv.join(' ')).toMatch(/^llama-server -m \/m\.gguf .*--threads 1/)
    // The failed combination is infeasible, with the failure as its violation.
    expect(d.evaluations[2]!.feasible).toBe(false)
    expect(d.evaluations[2]!.violations[0]).toEqual({ metric: 'failed_requests', limit: 0, value: 1 })
    expect(d.decision.reason).toMatch(/candidate 1 meets the objectives and beats the defaults/)
    // The one verdict (the tuner's runVerdict) reads that evidence and names the same winner.
    expect(d.verdict).toMatchObject({ kind: 'winner', index: 1, decidedBy: 'objectives' })
  })

  it('should not take a faster candidate that misses an objective, nor one whose speed-up is not significant', async () => {
    const slow = await decideDemo(issueSweep({ candidateTtft: 1500 }), slo, 16, '/m.gguf')
    expect(slow.decision.winner).toBeNull()
    expect(slow.verdict.index).toBeNull()
    expect(slow.winner).toBeUndefined()
    expect(slow.evaluations[1]!.violations[0]).toMatchObject({ metric: 'ttft_p99_ms', limit: 1000 })
    expect((await decideDemo(issueSweep({ verdict: 'inconclusive' }), slo, 16, '/m.gguf')).decision.winner).toBeNull()
  })

  it('should say the defaults miss the objectives and take the candidate that meets them', async () => {
    const d = await decideDemo(issueSweep({ baselineTtft: 2000 }), slo, 16, '/m.gguf')
    expect(d.decision).toMatchObject({ winner: 1, defaultsFeasible: false })
    expect(d.verdict).toMatchObject({ kind: 'winner', index: 1 })
  })
})
