import { describe, expect, it } from 'vitest'
import type { SweepResult } from '@kerneltune/experiment'
import { parseSlo } from '@kerneltune/serving'
import { decideDemo, DEMO_SLO_TEXT } from '@kerneltune/compose/bench'
import { renderDemoDecision } from './demo.ts'

/** Defaults at `baseTtft` ms TTFT, threads=1 five times faster at 28 ms, significantly better (how the sweep judged it). */
const sweepOf = (baseTtft: number) => ({
  baseline: { combo: {}, hash: 'b', reps: [0, 1, 2, 3].map((i) => ({ decodeTps: 100 + i, ttftMs: baseTtft + i })) },
  combos: [{ combo: { threads: '1' }, hash: 'c', reps: [0, 1, 2, 3].map((i) => ({ decodeTps: 500 + i, ttftMs: 28 + i })), comparison: { decodeTps: { verdict: 'better' } } }],
  recommendedArgv: ['srv'],
}) as unknown as SweepResult

describe('renderDemoDecision', () => {
  it('should print the objectives with why, each candidate against them, the objectives\' rule and the one verdict', async () => {
    const text = renderDemoDecision(await decideDemo(sweepOf(15), parseSlo(DEMO_SLO_TEXT), 16, '/m.gguf'))
    expect(text).toMatch(/^objectives: TTFT p99 ≤ 1000 ms, TPOT p99 ≤ 200 ms \(what a chat user would accept/)
    expect(text).toMatch(/\nthreads=1 +[\d,.]+ +[\d.]+ +[\d.]+ +meets\n/)
    expect(text).toMatch(/objectives alone: threads=1: candidate 1 meets the objectives and beats the defaults/)
    expect(text).toMatch(/\nverdict: threads=1: /)
    expect(text).not.toMatch(/the defaults miss/)
    expect(renderDemoDecision(await decideDemo(sweepOf(2000), parseSlo(DEMO_SLO_TEXT), 16, '/m.gguf'))).toMatch(/\(defaults\) .*misses: ttft_p99_ms [\s\S]*the defaults miss the objectives: the winner must meet them/)
  })
})
