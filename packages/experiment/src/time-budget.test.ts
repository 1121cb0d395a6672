import { describe, expect, it } from 'vitest'
import type { MeasurementBackend } from '@kerneltune/core'
import { llamacppEngine, withoutDefaults } from '@kerneltune/engines-llamacpp'
import { runInterleavedSweep } from './interleaved-sweep.ts'
import { budgetJson, budgetText, planBudget, REPORT_RESERVE_S, ROUNDS_SHARE_WITH_CAPACITY, type BudgetSearch } from './time-budget.ts'

describe('the sweep\'s time budget', () => {
  it('should keep a reserve for the report and give the rounds two thirds of the rest with --capacity', () => {
    expect(planBudget(60, 1000, false)).toEqual({ seconds: 60, startedAt: 1000, deadlineAt: 1000 + (60 - REPORT_RESERVE_S) * 1000, roundsDeadlineAt: 1000 + (60 - REPORT_RESERVE_S) * 1000 })
    expect(planBudget(60, 0, true).roundsDeadlineAt).toBeCloseTo((60 - REPORT_RESERVE_S) * 1000 * ROUNDS_SHARE_WITH_CAPACITY, 6)
    // A short budget keeps at most a tenth for the report.
    expect(planBudget(5, 0, false).deadlineAt).toBe(4500)
  })

  it('should say what the budget ended, in --json and in words', async () => {
    // Simulated measurements of 1 s on a simulated clock: a 7 s budget ends the rounds in round 2.
    let t = 0
    const backend: MeasurementBackend = {
      name: 'simulated', kind: 'measurement-backend', apiVersion: 1, simulated: true,
      measure: async () => ((t += 1000), { backend: 'simulated', simulated: true, device: 'test', repetitions: [{ latencyMs: 10, decodeTps: 100, throughputTps: 100, ttftMs: 10, prefillTps: 1000 }] }),
    }
    const r = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend, candidates: [{ combo: { threads: '1' } }, { combo: { threads: '2' } }], rounds: 8, minRounds: 0, timeBudgetMs: 7000, now: () => t, warmups: 0 })
    const b = planBudget(30, 0, true)
    const cut: BudgetSearch = { candidate: 0, capacity: { stop: 'deadline', points: [{}, {}, {}] }, deadlineAt: 28_000, endedAt: 28_100, longestMeasurementMs: 2500 }
    const j = budgetJson(b, r, { roundsEndedAt: 7000, capacity: [cut] }, 28_400)
    expect(j).toMatchObject({
      seconds: 30, startedAt: '1970-01-01T00:00:00.000Z', ended: true, endedIn: 'capacity', elapsedS: 28.4, longestMeasurementS: 2.5,
      rounds: { untilS: 18.67, endedAtS: 7, ended: true, measured: 2, planned: 8, partialRound: true, longestVisitS: 1 },
      capacity: { untilS: 28, searches: [{ candidate: 0, untilS: 28, endedAtS: 28.1, ended: true, measurements: 3, longestMeasurementS: 2.5 }] },
    })
    expect(budgetText(b, r, { roundsEndedAt: 7000, capacity: [cut] }, 28_400)).toBe(
      'time budget 30 s for the whole command; it ended the rounds at 7.0 s (their share ran to 18.7 s) after 2 of 8, the last one partial; it ended #0\'s capacity search after 3 measurements, at 28.1 s; 28.4 s used before this report',
    )
    // Rounds that finished within their share, and no capacity: nothing ended.
    const done = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend, candidates: [{ combo: { threads: '1' } }], rounds: 2, warmups: 0 })
    expect(budgetJson(b, done, { roundsEndedAt: 3000 }, 3100)).toMatchObject({ ended: false, endedIn: null, capacity: null, rounds: { ended: false, measured: 2 } })
  })

})
