import { KerneltuneError, mulberry32, type Combo, type MeasurementBackend } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { runInterleavedSweep } from './interleaved-sweep.ts'
import { minRoundsToDecide, pairedComparison } from './paired.ts'
import { llamacppEngine, withoutDefaults } from '@kerneltune/engines-llamacpp'

// The design is engine-neutral; these tests run it over llama.cpp's translator and defaults.
const LLAMA = { engine: llamacppEngine(), withoutDefaults }

/**
 * A backend with known truth: each combo has a true decode rate; the machine's load drifts from
 * round to round (a factor that ramps and jumps) and each measurement adds ±1% noise, all from a
 * seeded generator, so the tests are deterministic.
 */
function driftingBackend(truth: (c: Combo) => number, fail?: (c: Combo) => string | undefined): MeasurementBackend & { calls: Combo[] } {
  let i = 0
  let s = 42
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const calls: Combo[] = []
  return {
    name: 'drifting',
    kind: 'measurement-backend',
    apiVersion: 1,
    simulated: true,
    calls,
    async measure(req) {
      calls.push(req.combo)
      const why = fail?.(req.combo)
      if (why) throw new Error(why)
      const load = 1 - 0.4 * ((i++ % 20) / 20) // a saw-tooth: up to 40% slower
      const v = truth(req.combo) * load * (1 + (rnd() - 0.5) * 0.02)
      return { backend: 'drifting', simulated: true, device: 'test', repetitions: [{ latencyMs: 1000 / v, decodeTps: v, throughputTps: v, ttftMs: 10, prefillTps: 1000 }] }
    },
  }
}

const truth = (c: Combo) => (c.threads === '1' ? 110 : 100)
const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { flash_attn: 'off' } }, { combo: { threads: '2' } }]

describe('runInterleavedSweep', () => {
  it('should measure every arm once per round in a seeded random order, the defaults twice (A/A)', async () => {
    const backend = driftingBackend(truth)
    const r = await runInterleavedSweep({ ...LLAMA, backend, candidates, rounds: 4, seed: 3, warmups: 0 })
    expect(r.rounds).toBe(4)
    expect(backend.calls.length).toBe(4 * 5)
    for (const round of r.order) expect(new Set(round).size).toBe(5)
    expect(new Set(r.order.map((x) => x.join())).size).toBeGreaterThan(1)
    const again = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 4, seed: 3, warmups: 0 })
    expect(again.order).toEqual(r.order)
  })

  it('should find a 10% gain that drift of up to 40% hides from unpaired statistics, without crowning the A/A arm', async () => {
    const r = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 8, seed: 1, warmups: 0 })
    expect(r.winner?.combo).toEqual({ threads: '1' })
    expect(r.winner!.paired.decodeTps!.improvement).toBeGreaterThan(0.07)
    expect(r.winner!.paired.decodeTps!.improvement).toBeLessThan(0.13)
    // Unpaired, the same samples do not separate: the drift is larger than the effect.
    expect(r.winner!.comparison.decodeTps!.verdict).toBe('indistinguishable')
    expect(r.aa.declaredWinner).toBe(false)
    expect(r.aa.falseWinnerRate).toBeLessThan(0.1)
    expect(r.recommendedArgv).toEqual(['llama-server', '-m', '<model.gguf>', '--threads', '1'])
  })

  it('should say in the verdict whether the p-value is exact (up to 14 rounds) or resampled (past them)', async () => {
    const r = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 8, seed: 1, warmups: 0 })
    expect(r.winner!.paired.decodeTps).toMatchObject({ pMethod: 'exact', patterns: 256 })
    expect(r.verdict).toMatch(/p=[0-9.e-]+, exact \(2\^8 = 256 patterns\)\)/)
    const long = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 16, seed: 1, warmups: 0, aaResamples: 200 })
    expect(long.winner!.paired.decodeTps).toMatchObject({ pMethod: 'resampled', patterns: 10_000, resamples: 10_000, pFloor: 1 / 10_001 })
    expect(long.verdict).toMatch(/p=[0-9.e-]+, resampled \(10,000 patterns, p ≥ 1\/10,001\)\)/)
    // No winner: the best arm's p-value is labelled too, with its test.
    const none = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(() => 100), candidates, rounds: 8, seed: 1, warmups: 0, aaResamples: 0 })
    expect(none.winner).toBeUndefined()
    expect(none.verdict).toMatch(/p=[0-9.e-]+, sign-flip exact \(2\^8 = 256 patterns\)\); keep the defaults/)
  })

  it('should record a combination that fails as a failed arm and keep going', async () => {
    const backend = driftingBackend(truth, (c) => (c.flash_attn === 'off' ? 'llama-server exited (code 1) before it was ready: error: bad' : undefined))
    const r = await runInterleavedSweep({ ...LLAMA, backend, candidates, rounds: 3, warmups: 0 })
    const failed = r.combos.find((c) => c.combo.flash_attn === 'off')!
    expect(failed.error).toMatch(/exited \(code 1\)/)
    expect(backend.calls.filter((c) => c.flash_attn === 'off').length).toBe(1)
    await expect(runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth, (c) => (Object.keys(c).length === 0 ? 'no' : undefined)), candidates, rounds: 2, warmups: 0 })).rejects.toThrow(/default settings could not be measured/)
  })

  it('should say when too few rounds were measured for the sign-flip test to decide anything', async () => {
    expect(minRoundsToDecide(0.05)).toBe(7)
    expect(minRoundsToDecide(0.01)).toBe(9)
    const r = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 4, seed: 1, warmups: 0 })
    expect(r.winner).toBeUndefined()
    expect(r.verdict).toMatch(/with 4 rounds no comparison can reach p < 0.05 \(the sign-flip test needs 7\)/)
    const paired = await runInterleavedSweep({ ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 4, seed: 1, warmups: 0, test: 'paired' })
    expect(paired.verdict).not.toMatch(/sign-flip/)
  })

  it('should start no measurement the time budget cannot hold after the minimum rounds, and use the part of the last round it reached', async () => {
    let t = 0
    const backend = driftingBackend(truth)
    const timed: MeasurementBackend = { ...backend, measure: async (req) => ((t += 1000), backend.measure(req)) }
    const r = await runInterleavedSweep({ ...LLAMA, backend: timed, candidates, rounds: 10, timeBudgetMs: 12_000, now: () => t, warmups: 0 })
    // A measurement takes 1 s, a round 5 s: rounds 1-2 always run (10 s), then two measurements
    // of round 3 fit (11 s, 12 s) and a third would end at 13 s.
    expect(t).toBe(12_000)
    expect([r.rounds, r.partialRound, r.order.map((x) => x.length)]).toEqual([3, true, [5, 5, 2]])
    // The arms round 3 reached have a third measurement; the others have two.
    const third = new Set(r.order[2])
    for (const c of r.combos) expect(c.reps.length).toBe(third.has(c.hash) ? 3 : 2)
    expect(r.baseline.reps.length).toBe(third.has('baseline') ? 3 : 2)
    // A budget that ends exactly with a round starts no other.
    t = 0
    const whole = await runInterleavedSweep({ ...LLAMA, backend: timed, candidates, rounds: 10, timeBudgetMs: 10_000, now: () => t, warmups: 0 })
    expect([whole.rounds, whole.partialRound, whole.order.length, t]).toEqual([2, false, 2, 10_000])
  })

  it('should cancel a measurement still running when the budget runs out, and drop it', async () => {
    const backend = driftingBackend(truth)
    let slowAborted = false
    let visits = 0
    // Visits are instant until the 13th, which would hang until cancelled (a burst of load).
    const hanging: MeasurementBackend = {
      ...backend,
      measure: (req) => {
        if (++visits !== 13) return backend.measure(req)
        return new Promise((_, reject) => req.signal!.addEventListener('abort', () => ((slowAborted = true), reject(new KerneltuneError('CANCELLED', 'the load was cancelled'))), { once: true }))
      },
    }
    // 2 s leaves the first 12 instant visits ample time on a loaded machine; the 13th then waits for the deadline.
    const r = await runInterleavedSweep({ ...LLAMA, backend: hanging, candidates, rounds: 100, timeBudgetMs: 2000, warmups: 0 })
    expect(slowAborted).toBe(true)
    expect(visits).toBe(13)
    // Rounds 1-2 (10 visits) and 2 visits of round 3 were kept; the cancelled one is not in the order.
    expect([r.rounds, r.partialRound, r.order.map((x) => x.length)]).toEqual([3, true, [5, 5, 2]])
    // A cancellation by the caller is still a cancellation.
    const ctl = new AbortController()
    ctl.abort()
    await expect(runInterleavedSweep({ ...LLAMA, backend, candidates, rounds: 3, signal: ctl.signal, warmups: 0 })).rejects.toThrow(/cancelled/)
  })

  it('should hold a budget too short for 2 rounds when minRounds is 0, and say that nothing could be compared', async () => {
    let t = 0
    const backend = driftingBackend(truth)
    const timed: MeasurementBackend = { ...backend, measure: async (req) => ((t += 1000), backend.measure(req)) }
    const run = (timeBudgetMs: number) => ((t = 0), runInterleavedSweep({ ...LLAMA, backend: timed, candidates, rounds: 10, minRounds: 0, timeBudgetMs, now: () => t, warmups: 0 }))
    // 5 arms of 1 s a round (the default minRounds would run 2 rounds, 10 s, whatever the budget).
    // 3.5 s: 4 visits of round 1 (a first visit has no estimate, so the 4th starts at 3 s), which
    // in seed 1's order reach the defaults last: one round of them.
    const one = await run(3500)
    expect([t, one.rounds, one.partialRound, one.budgetEnded, one.order.map((x) => x.at(-1))]).toEqual([4000, 1, true, true, ['baseline']])
    expect(one.longestVisitMs).toBe(1000)
    expect(one.winner).toBeUndefined()
    expect(one.verdict).toBe('the time budget ended the sweep after 1 round (the last one partial), before the defaults had the 2 a comparison needs: nothing was compared; keep the defaults, and give the sweep a larger time budget')
    expect(one.combos.every((c) => Object.keys(c.paired).length === 0 && c.reps.length <= 1)).toBe(true)
    expect(one.gate.passed).toBe(false)
    // 6 s: round 2 reaches only the defaults, so they have 2 rounds and no candidate a pair.
    const six = await run(6000)
    expect([t, six.rounds, six.order[1], six.baseline.reps.length]).toEqual([6000, 2, ['baseline'], 2])
    expect(six.verdict).toMatch(/^no combination was measured in 2 rounds beside the defaults, so none could be compared; keep the defaults; with 2 rounds/)
    // Inside the first measurement: the first visit is a round's start and always runs (its length is unknown); then it stops.
    const none = await run(500)
    expect([t, none.rounds, none.baseline.reps.length, none.budgetEnded]).toEqual([1000, 1, 0, true])
    expect(none.verdict).toMatch(/^the time budget ended the sweep after 1 round/)
  })

  it('should hand out the result so far after every round but the last, and say whether the budget ended the rounds', async () => {
    const seen: { rounds: number; budgetEnded: boolean; reps: number; resamples: number }[] = []
    const r = await runInterleavedSweep({
      ...LLAMA, backend: driftingBackend(truth), candidates, rounds: 4, seed: 1, warmups: 0,
      onRound: (p) => void seen.push({ rounds: p.rounds, budgetEnded: p.budgetEnded, reps: p.baseline.reps.length, resamples: p.aa.resamples }),
    })
    // Round 1's result has one round of the defaults (nothing compared yet); the A/A rate is left to the final result.
    expect(seen).toEqual([1, 2, 3].map((n) => ({ rounds: n, budgetEnded: false, reps: n, resamples: 0 })))
    expect([r.rounds, r.budgetEnded, r.aa.resamples]).toEqual([4, false, 2000])
  })

  it('should let a measurement that started inside the budget finish past it, within one visit', async () => {
    let t = 0
    let cut = false
    const backend = driftingBackend(truth)
    // Round 1's first 4 visits take 1.25 s each (simulated clock), so the 5th, a first visit with
    // no estimate, starts exactly at the 5 s budget. It answers after a real 10 ms: cancelling it at
    // the deadline (a 0 ms timer) would drop it; one visit past the deadline (1.25 s) it is kept.
    const timed: MeasurementBackend = {
      ...backend,
      measure: (req) => new Promise((resolve, reject) => {
        t += 1250
        req.signal?.addEventListener('abort', () => ((cut = true), reject(new KerneltuneError('CANCELLED', 'the load was cancelled'))), { once: true })
        setTimeout(() => void backend.measure(req).then(resolve, reject), 10)
      }),
    }
    const r = await runInterleavedSweep({ ...LLAMA, backend: timed, candidates, rounds: 10, minRounds: 0, timeBudgetMs: 5000, now: () => t, warmups: 0 })
    expect(cut).toBe(false)
    expect([t, r.rounds, r.partialRound, r.order.map((x) => x.length)]).toEqual([6250, 1, false, [5]])
  })

  it('should estimate a measurement by the arm\'s last one, not its first that paid for a launch', async () => {
    let t = 0
    const launched = new Set<string>()
    const backend = driftingBackend(truth)
    // The first visit of an arm costs 4 s more (its server's launch); every visit costs 1 s.
    const timed: MeasurementBackend = {
      ...backend,
      measure: async (req) => {
        const key = JSON.stringify(req.combo)
        if (!launched.has(key)) (launched.add(key), (t += 4000))
        t += 1000
        return backend.measure(req)
      },
    }
    const r = await runInterleavedSweep({ ...LLAMA, backend: timed, candidates, rounds: 10, timeBudgetMs: 40_000, now: () => t, warmups: 0, aaCombo: { cont_batching: 'on' } })
    // Round 1: 5 arms x 5 s = 25 s; later measurements 1 s each. Rounds 2-4 end at 30, 35 and 40 s;
    // the 5th's first measurement would end at 41 s: four rounds. Estimating by the first visit
    // (5 s) would have stopped after two, with a quarter of the budget unused.
    expect(r.rounds).toBe(4)
    expect(launched.size).toBe(5)
    expect(t).toBeLessThanOrEqual(40_000)
  })
})

describe('runInterleavedSweep statistics', () => {
  /**
   * Many short sweeps on a simulated machine with known truth: each round the load takes a new
   * level (a factor between 0.5 and 1.5, shared by the round's arms), and every measurement has
   * log-normal noise of its own: `sd` for the defaults (and the A/A arm), `candidateSd` for the
   * candidates; with probability `wild` a measurement is 3x slower on top. threads=1 is truly 15%
   * faster; every other arm equals the defaults. Seeded, so the counts are deterministic.
   */
  async function simulate(o: { sweeps: number; rounds: number; test: 'paired' | 'blocked' | 'sign-flip'; sd: number; candidateSd: number; wild?: number }) {
    const next = mulberry32(20261125)
    const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
    let load = 1
    let calls = 0
    const backend: MeasurementBackend = {
      name: 'noisy', kind: 'measurement-backend', apiVersion: 1, simulated: true,
      async measure(req) {
        if (calls++ % 5 === 0) load = 0.5 + next()
        const defaults = Object.keys(req.combo).length === 0 || req.combo.cont_batching === 'on'
        // With probability `wild` a measurement reads 3x slower (a descheduled server).
        const v = (req.combo.threads === '1' ? 115 : 100) * load * Math.exp((defaults ? o.sd : o.candidateSd) * normal()) / (next() < (o.wild ?? 0) ? 3 : 1)
        return { backend: 'noisy', simulated: true, device: 'test', repetitions: [{ latencyMs: 1000 / v, decodeTps: v, throughputTps: v, ttftMs: 10, prefillTps: 1000 }] }
      },
    }
    let found = 0
    let paired = 0
    let aaWins = 0
    let nullDecisions = 0
    for (let s = 0; s < o.sweeps; s++) {
      const r = await runInterleavedSweep({ ...LLAMA, backend, candidates, rounds: o.rounds, seed: s, warmups: 0, aaCombo: { cont_batching: 'on' }, aaResamples: 0, test: o.test })
      const gain = r.combos.find((c) => c.combo.threads === '1')!
      if (gain.paired.decodeTps!.verdict === 'better') found++
      const pairs = gain.reps.map((x, i) => [x.decodeTps!, r.baseline.reps[i]!.decodeTps!] as const)
      if (pairedComparison(pairs, true)!.verdict === 'better') paired++
      if (r.aa.declaredWinner) aaWins++
      nullDecisions += r.combos.filter((c) => c.combo.threads !== '1' && c.paired.decodeTps!.verdict !== 'indistinguishable').length
    }
    return { found, paired, aaWins, nullDecisions }
  }

  it('should, with the blocked test and arms equally noisy, decide a real gain in 3 rounds far more often than the paired test', async () => {
    const sweeps = 300
    const r = await simulate({ sweeps, rounds: 3, test: 'blocked', sd: 0.08, candidateSd: 0.08 })
    // Log effect 0.140 against a per-difference sd of 0.113 over 3 rounds: t has noncentrality 2.14;
    // scipy's noncentral t gives power 0.469 with 8 degrees of freedom (5 arms) and 0.240 with 2
    // (one arm's own ratios). Binomial sd over 300 sweeps ≈ 0.029 and 0.025: allow 3.5 sd.
    expect(Math.abs(r.found / sweeps - 0.469)).toBeLessThan(0.1)
    expect(Math.abs(r.paired / sweeps - 0.24)).toBeLessThan(0.09)
    expect(r.found).toBeGreaterThan(1.4 * r.paired)
    // The A/A arm is called better in about 2.5% of sweeps (one side of a 5% test); the two null
    // candidates (threads=2, flash_attn=off) are decided either way in about 5% of comparisons.
    expect(r.aaWins / sweeps).toBeLessThan(0.06)
    expect(r.nullDecisions / (2 * sweeps)).toBeLessThan(0.09)
  })

  it('should, with the sign-flip test, find a gain through wild measurements that hide it from the t-test, and crown the A/A arm at most alpha/2 of the time', async () => {
    const sweeps = 200
    const o = { sweeps, rounds: 12, sd: 0.08, candidateSd: 0.08, wild: 0.1 }
    const signFlip = await simulate({ ...o, test: 'sign-flip' })
    const paired = await simulate({ ...o, test: 'paired' })
    // One measurement in ten 3x slower puts a log ratio ±1.1 away now and then: the t-test's
    // variance balloons, the 20% trimmed mean drops those rounds.
    expect(signFlip.found).toBeGreaterThan(1.5 * paired.found)
    expect(signFlip.found / sweeps).toBeGreaterThan(0.4) // 0.52 with this seed
    // Exact test: the A/A arm is called better in at most 2.5% of sweeps (binomial sd 1.1%).
    expect(signFlip.aaWins / sweeps).toBeLessThan(0.025 + 3 * 0.011)
    expect(signFlip.nullDecisions / (2 * sweeps)).toBeLessThan(0.05 + 3 * 0.011)
  })

  it('should keep the A/A arm at alpha with the paired test when the defaults are noisier than the candidates, where the blocked test is fooled', async () => {
    // As measured on a loaded 2-core CPU: llama-server with 2 threads collapses now and then, with
    // 1 thread it does not, so the defaults' log rate is several times noisier than a candidate's.
    const sweeps = 300
    const o = { sweeps, rounds: 10, sd: 0.4, candidateSd: 0.05 }
    const paired = await simulate({ ...o, test: 'paired' })
    const blocked = await simulate({ ...o, test: 'blocked' })
    // Paired: the A/A differences carry their own variance, so it is called better in ~2.5% of
    // sweeps (binomial sd 0.9% over 300). Blocked: the residual pool, mostly calm candidates,
    // underestimates that variance about 2.4-fold, so t is inflated ~1.6x and clears 2.03 (36 df)
    // at |z| > 1.3: ~10% on the better side.
    expect(paired.aaWins / sweeps).toBeLessThan(0.06)
    expect(blocked.aaWins / sweeps).toBeGreaterThan(0.08)
    expect(blocked.aaWins).toBeGreaterThan(2 * paired.aaWins)
  })
})

describe('pairedComparison', () => {
  it('should estimate the geometric mean ratio and call a consistent gain better', () => {
    const pairs = [[105, 100], [52.5, 50], [84, 80], [126, 120]].map(([a, b]) => [a! * (1 + 0.001 * a!), b!] as const)
    const c = pairedComparison(pairs, true)!
    expect(c.verdict).toBe('better')
    expect(c.improvement).toBeGreaterThan(0.1)
    expect(pairedComparison([[100, 100], [101, 99], [99, 101]], true)!.verdict).toBe('indistinguishable')
    expect(pairedComparison([[90, 100], [45, 50], [89, 99]], false)!.verdict).toBe('better')
    expect(pairedComparison([[1, 1]], true)).toBeUndefined()
  })
})
