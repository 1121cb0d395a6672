import { improvementText, unitOf, withUnit } from '@kerneltune/serving'
import { signFlipTest } from '@kerneltune/stats'
import { describe, expect, it } from 'vitest'
import { noisyExperiment, noisyObjectives, noisyRun, threeRounds } from './noisy-run.fixture.ts'
import { minRoundsForPairedBeats } from './objectives.ts'
import { runVerdict, withRecommendedArgv } from './verdict.ts'

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
/** The reported run with the A/A arm as quiet as a calm machine's. */
const quietAa = { ...noisyExperiment, aa: { comparison: threeRounds(0.01, -0.05, 0.07, 1), declaredWinner: false, falseWinnerRate: 0 } }

describe('runVerdict on the run issue 34 reports (3 interleaved rounds, objectives, the A/A arm at +460%)', () => {
  const v = runVerdict(noisyRun)

  it('should withhold the verdict and keep the defaults: the A/A arm differs from the defaults more than any candidate does', () => {
    expect(v.kind).toBe('withheld')
    expect(v.index).toBeNull()
    expect(v.candidate).toBe(5)
    expect(v.headline).toBe('No verdict, the defaults stay: the A/A arm (the defaults against themselves) read +460.0% on decodeTps, larger than every difference measured: the noise is larger than the effect; 3 rounds cannot reach p < 0.05: the sign-flip test on decodeTps needs at least 7; the machine was too noisy to decide.')
    expect(v.headline).not.toMatch(/winner/i)
    // What the objectives alone would have done is said, as a reason, not as the verdict.
    expect(v.reasons[0]).toBe('the objectives alone would pick #5 (the defaults miss the objectives; combination 5 meets them and is the best that does by goodput)')
  })

  it('should give every figure its unit: goodput in requests/s, the paired ratio\'s interval in percent', () => {
    expect(v.best).toEqual({ index: 5, quantity: 'goodput', value: 65.3, unit: 'requests/s' })
    expect(v.figures.map((f) => [f.label, f.text])).toEqual([
      ['goodput of #5', '65.3 requests/s'],
      ['goodput of the defaults', '3.98 requests/s'],
      ['#5 against the defaults on goodput', '+1540.7%'],
      ['#5 against the defaults on decodeTps, paired by round', '+310.0%'],
      ['95% interval of the ratio of #5 to the defaults on decodeTps', '-52.0% to +11585.0%'],
    ])
    expect(v.figures.every((f) => f.unit !== '' && f.text.endsWith(f.unit === '%' ? '%' : f.unit))).toBe(true)
  })

  it('should report what the A/A arm read instead of a false-winner rate that 3 rounds make 0 by construction', () => {
    expect(v.power).toMatchObject({ rounds: 3, minRounds: 7, canDecide: false })
    expect(v.aa).toMatchObject({ improvement: 4.6, largestEffect: 3.1, noiseDominates: true, declaredWinner: false, falseWinnerRate: null })
    expect(v.aa!.text).toContain('read +460.0% on decodeTps against the defaults, as large as or larger than every difference measured (the largest difference of a candidate from the defaults is ±310.0%): the noise is larger than every effect measured.')
    expect(v.aa!.text).toContain('3 rounds cannot reach p < 0.05')
    expect(v.aa!.text).not.toContain('sign-flip resamples would be called better')
  })
})

describe('runVerdict: who decides, and what the evidence lets it say', () => {
  it('should not confirm the objectives\' pick in 3 rounds even with a quiet A/A arm: the defaults\' miss was measured in as few', () => {
    const v = runVerdict({ ...noisyRun, experiment: quietAa })
    expect(v).toMatchObject({ kind: 'withheld', index: null, candidate: 5, decidedBy: 'objectives' })
    expect(v.headline).toBe('No verdict, the defaults stay: 3 rounds cannot reach p < 0.05: the sign-flip test on decodeTps needs at least 7, so the paired rounds cannot confirm #5.')
    expect(v.reasons[0]).toBe('the objectives alone would pick #5 (the defaults miss the objectives; combination 5 meets them and is the best that does by goodput); goodput 65.3 requests/s against 3.98 requests/s for the defaults (+1540.7%); 95% interval of the ratio to the defaults on decodeTps: -52.0% to +11585.0%')
  })

  it('should name the objectives\' pick when the defaults miss the objectives, the rounds can decide and the A/A arm is quiet', () => {
    const eight = (c: ReturnType<typeof threeRounds>) => ({ ...c, n: 8 })
    const e = { ...quietAa, rounds: 8, paired: { 5: eight(threeRounds(0.9, 0.2, 1.8, 0.03)) }, aa: { ...quietAa.aa, comparison: eight(quietAa.aa.comparison!) } }
    const v = runVerdict({ ...noisyRun, experiment: e })
    expect(v).toMatchObject({ kind: 'winner', index: 5, decidedBy: 'objectives' })
    expect(v.headline).toBe('Winner: #5: #5 meets the objectives and the defaults do not; goodput 65.3 requests/s against 3.98 requests/s for the defaults (+1540.7%); 95% interval of the ratio to the defaults on decodeTps: +20.0% to +180.0%.')
  })

  it('should keep the defaults, and say that 3 rounds cannot reach p < 0.05, when the defaults meet the objectives', () => {
    const objectives = { ...noisyObjectives, candidates: noisyObjectives.candidates.map((c) => (c.index === 0 ? { ...c, feasible: true, violations: [] } : c)), decision: { winner: null, defaultsFeasible: true, reason: 'the best feasible candidate (5) does not beat the defaults by goodput: keep the defaults', test: noisyObjectives.decision.test } }
    const v = runVerdict({ ...noisyRun, objectives, experiment: quietAa, winner: { ...noisyRun.winner!, index: 0, value: 3.98, improvement: 0 } })
    expect(v).toMatchObject({ kind: 'keep-defaults', index: null, candidate: 5 })
    expect(v.headline).toBe('Keep the defaults: 3 rounds cannot reach p < 0.05: the paired sign-flip test on goodput needs at least 6.')
  })

  it('should keep the defaults when the design found nothing better, saying why', () => {
    const v = runVerdict({ ...noisyRun, objectives: undefined, winner: null, experiment: quietAa })
    expect(v).toMatchObject({ kind: 'keep-defaults', decidedBy: 'design' })
    expect(v.headline).toBe('Keep the defaults: 3 rounds cannot reach p < 0.05: the sign-flip test on decodeTps needs at least 7.')
    expect(v.reasons[0]).toBe('no combination is significantly better than the defaults on decodeTps (best: #5, +310.0%, p = 0.25)')
  })

  it('should name the design\'s winner with enough rounds, and report the A/A false-winner rate only then', () => {
    const better = { ...threeRounds(0.12, 0.03, 0.21, 0.008), n: 8, verdict: 'better' as const }
    const e = { ...noisyExperiment, rounds: 8, paired: { 5: better }, winner: { index: 5, comboHash: 'h5', combo: {}, improvement: 0.12, argv: [] }, verdict: 'decodeTps +12.0% against the default settings', aa: { comparison: { ...threeRounds(0.01, -0.04, 0.06, 0.7), n: 8 }, declaredWinner: false, falseWinnerRate: 0.031 } }
    const v = runVerdict({ ...noisyRun, objectives: undefined, experiment: e, winner: { ...noisyRun.winner!, value: 41.5, improvement: 0.12 } })
    expect(v).toMatchObject({ kind: 'winner', index: 5, decidedBy: 'design' })
    expect(v.headline).toBe('Winner: #5, decodeTps 41.5 tokens/s (+12.0%); 95% interval of the ratio to the defaults on decodeTps: +3.0% to +21.0%.')
    expect(v.aa!.text).toContain('At this noise, 3.1% of the A/A arm\'s sign-flip resamples would be called better than the defaults')
    // The same run with the A/A arm crowned: no verdict.
    const crowned = runVerdict({ ...noisyRun, objectives: undefined, experiment: { ...e, aa: { ...e.aa, declaredWinner: true } } })
    expect(crowned.kind).toBe('withheld')
    expect(crowned.headline).toMatch(/^No verdict, the defaults stay: the A\/A arm \(the defaults against themselves\) was called better than the defaults \(\+1\.0% on decodeTps\)/)
  })

  it('should withhold when the A/A arm\'s interval lies wholly outside ±2%, even when the A/A arm reads less than the winner (the machine drifted), and recommend nothing', async () => {
    const better = { ...threeRounds(0.12, 0.03, 0.21, 0.008), n: 8, verdict: 'better' as const }
    const aaAt = (improvement: number, low: number, high: number) => ({ comparison: { ...threeRounds(improvement, low, high, 0.02), n: 8 }, declaredWinner: false, falseWinnerRate: 0.03 })
    const e = { ...noisyExperiment, rounds: 8, paired: { 5: better }, winner: { index: 5, comboHash: 'h5', combo: {}, improvement: 0.12, argv: [], value: 41.5 }, verdict: 'decodeTps +12.0%' }
    const input = { ...noisyRun, objectives: undefined }
    const combos: { index: number; combo: Record<string, string>; isBaseline: boolean }[] = [{ index: 0, combo: {}, isBaseline: true }, { index: 5, combo: { threads: '5' }, isBaseline: false }]
    const argvOf = async (c: Record<string, string>) => ['llama-server', ...Object.entries(c).flatMap(([k, v]) => [`--${k}`, v])]
    const drifted = await withRecommendedArgv(runVerdict({ ...input, experiment: { ...e, aa: aaAt(0.05, 0.03, 0.08) } }), combos, argvOf)
    expect(drifted.kind).toBe('withheld')
    expect(drifted.aa).toMatchObject({ outsideBand: true, noiseDominates: false, band: 0.02 })
    expect(drifted.headline).toMatch(/its 95% interval wholly outside ±2%: the same settings differed measurably from themselves; the machine was too noisy to decide\.$/)
    expect(drifted.recommendedArgv).toBeNull()
    // The same run with the A/A interval covering the band: the winner stands, with its command line.
    const calm = await withRecommendedArgv(runVerdict({ ...input, experiment: { ...e, aa: aaAt(0.01, -0.01, 0.04) } }), combos, argvOf)
    expect(calm).toMatchObject({ kind: 'winner', index: 5, recommendedArgv: ['llama-server', '--threads', '5'] })
    // A wider band (the run's epsilon) accepts what ±2% did not.
    expect(runVerdict({ ...input, experiment: { ...e, aa: aaAt(0.05, 0.03, 0.08) } }, { band: 0.05 }).kind).toBe('winner')
  })

  it('should let a sequential design\'s rule decide, not the best mean: no significant winner keeps the defaults', async () => {
    const seq = { design: 'sequential' as const, metric: 'decodeTps', device: 'cpu', worker: null, winner: null, verdict: 'no combination is significantly better', recommendedArgv: [] }
    // summarizeRun's best by mean is #3; the design found nothing significant: the defaults stay, with their command line.
    const v = await withRecommendedArgv(runVerdict({ ...noisyRun, objectives: undefined, experiment: seq }), [{ index: 0, combo: {}, isBaseline: true }], async () => ['llama-server'])
    expect(v).toMatchObject({ kind: 'keep-defaults', index: null, decidedBy: 'design', recommendedArgv: ['llama-server'] })
    const picked = runVerdict({ ...noisyRun, objectives: undefined, experiment: { ...seq, winner: { index: 2, comboHash: 'h2', combo: {}, improvement: 0.3, argv: [], value: 14 } } }, { winnerGate: { passed: true, reasons: [] } })
    expect(picked).toMatchObject({ kind: 'winner', index: 2, best: { index: 2, value: 14 } })
  })

  it('should not say a pick beats defaults that were never measured (load levels of one server: bench serve and capacity)', () => {
    const levels = { ...noisyObjectives, decision: { ...noisyObjectives.decision, winner: 2, defaultsFeasible: null, reason: 'the defaults were not measured: the best feasible combination' } }
    const v = runVerdict({ ...noisyRun, experiment: undefined, baseline: null, gate: null, objectives: levels })
    expect(v.headline).toMatch(/#2 meets the objectives \(no defaults were measured to compare it with\)/)
    expect(v.headline).not.toMatch(/beats the defaults/)
  })

  const sequential: typeof noisyRun = { ...noisyRun, objectives: undefined, experiment: undefined, metric: 'latencyMs', baseline: { index: 0, comboHash: 'h0', combo: {}, value: 20 }, winner: { ...noisyRun.winner!, index: 3, value: 15, improvement: 0.25 } }

  it('should follow the quality gate in a sequential run: pass, fail, manual review, no gate', () => {
    const pass = runVerdict(sequential, { winnerGate: { passed: true, reasons: [] } })
    expect(pass).toMatchObject({ kind: 'winner', index: 3, decidedBy: 'gate' })
    expect(pass.headline).toBe('Winner: #3: latencyMs 15.0 ms against 20.0 ms for the defaults (25.0% lower).')
    const fail = runVerdict(sequential, { winnerGate: { passed: false, reasons: ['p = 0.2 ≥ 0.05'] } })
    expect(fail).toMatchObject({ kind: 'keep-defaults', index: null, candidate: 3, reasons: ['p = 0.2 ≥ 0.05'] })
    expect(fail.headline).toMatch(/^Keep the defaults: best candidate #3 failed the quality gate/)
    expect(runVerdict({ ...sequential, gate: { method: 'manual', passed: false, reasons: [] } }).kind).toBe('review')
    expect(runVerdict({ ...sequential, gate: null }).kind).toBe('ungated')
    expect(runVerdict({ ...sequential, winner: { ...sequential.winner!, index: 0 } }).headline).toBe('Keep the defaults: the defaults (#0) are best; no candidate beat them.')
    expect(runVerdict({ ...sequential, counts: { ...sequential.counts, measured: 0 }, winner: null, baseline: null }).kind).toBe('none')
  })

  it('should say that nothing meets the objectives when neither the defaults nor a candidate does', () => {
    const v = runVerdict({ ...noisyRun, winner: null, objectives: { ...noisyObjectives, decision: { winner: null, defaultsFeasible: false, reason: 'the defaults miss the objectives, and so does every other candidate', test: noisyObjectives.decision.test } } })
    expect(v).toMatchObject({ kind: 'none', index: null })
    expect(v.headline).toBe('No verdict: nothing meets the objectives, the defaults included.')
  })
})

describe('units and the power of the objectives\' paired test', () => {
  it('should give each quantity its unit', () => {
    expect(['goodput', 'requestThroughput', 'outputTokensPerSecond', 'decodeTps', 'throughputTps', 'latencyMs', 'ttft_p99_ms', 'ttftMs'].map(unitOf)).toEqual(['requests/s', 'requests/s', 'tokens/s', 'tokens/s', 'tokens/s', 'ms', 'ms', 'ms'])
    expect(withUnit(65.3, 'requests/s')).toBe('65.3 requests/s')
    expect(withUnit(3.98, 'requests/s')).toBe('3.98 requests/s')
    expect(improvementText(0.25, 'latencyMs')).toBe('25.0% lower')
    expect(improvementText(-0.1, 'decodeTps')).toBe('-10.0%')
  })

  it('should find the fewest rounds at which the two-sided sign-flip test can give p < 0.05', () => {
    const n = minRoundsForPairedBeats(0.05)
    // All differences of one sign is the most extreme pattern there is: its p-value is the floor.
    const floor = (k: number) => signFlipTest(Array.from({ length: k }, (_, i) => 1 + i / 10), mean).pValue
    expect(floor(n)).toBeLessThan(0.05)
    expect(floor(n - 1)).toBeGreaterThanOrEqual(0.05)
    expect(n).toBe(6)
  })
})
