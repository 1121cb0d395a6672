import { describe, expect, it } from 'vitest'
import { evaluateGate } from './index.ts'
import { metricDirection, type GateCandidate, type MetricSamples } from './types.ts'

// Seven repetitions around a centre with a small fixed spread (±0.5%).
const around = (c: number): number[] => [-0.5, -0.2, 0, 0.1, 0.3, 0.4, -0.1].map((f) => c * (1 + f / 100))
const combo = (id: string, tps: number, lat: number): GateCandidate => ({ comboHash: id, metrics: { throughputTps: around(tps), latencyMs: around(lat) } })
const baseline: MetricSamples = { throughputTps: around(1000), latencyMs: around(20) }

describe('evaluateGate', () => {
  it('topk5: should pass when the top five all beat the baseline by the margin, and fail naming the one that does not', () => {
    const good = ['a', 'b', 'c', 'd', 'e'].map((id, i) => combo(id, 1200 - i * 10, 18))
    const r = evaluateGate('topk5', { candidates: [...good, combo('z', 900, 25)], baseline, metric: 'throughputTps' })
    expect(r).toMatchObject({ method: 'topk5', passed: true, status: 'pass', winner: 'a' })
    expect(r.perCombo.find((c) => c.comboHash === 'z')).toMatchObject({ passed: false })
    expect(r.perCombo.find((c) => c.comboHash === 'z')!.reasons[0]).toMatch(/outside the top 5/)
    const weak = [...good.slice(0, 4), combo('e', 1030, 18)]
    const f = evaluateGate('topk5', { candidates: weak, baseline, metric: 'throughputTps' })
    expect(f.passed).toBe(false)
    expect(f.perCombo.find((c) => c.comboHash === 'e')!.reasons[0]).toMatch(/below the 5.00% margin/)
    expect(f.reasons.join(' ')).toMatch(/1 of the top 5/)
  })

  it('topk5: should rank latency lower-is-better and need two repetitions for the test', () => {
    const r = evaluateGate('topk5', { candidates: [combo('fast', 1000, 15), combo('slow', 1000, 19)], baseline, metric: 'latencyMs', k: 1 })
    expect(r).toMatchObject({ passed: true, winner: 'fast' })
    const one = evaluateGate('topk5', { candidates: [{ comboHash: 'x', metrics: { latencyMs: [10] } }], baseline, metric: 'latencyMs' })
    expect(one.passed).toBe(false)
    expect(one.perCombo[0]!.reasons[0]).toMatch(/at least 2 repetitions/)
  })

  it('pareto: should pass a winner on the frontier and fail one that is dominated', () => {
    const on = evaluateGate('pareto', { candidates: [combo('hi', 1300, 30), combo('lo', 1100, 15)], baseline, metric: 'throughputTps' })
    expect(on).toMatchObject({ passed: true, winner: 'hi' })
    expect(on.perCombo.every((c) => c.passed)).toBe(true)
    // The winner by latency is 'lo'; 'mid' is dominated by 'lo' (more throughput, less latency).
    const off = evaluateGate('pareto', { candidates: [combo('lo', 1100, 15), combo('mid', 1000, 16)], baseline, metric: 'latencyMs' })
    expect(off.passed).toBe(true)
    expect(off.perCombo.find((c) => c.comboHash === 'mid')!.reasons[0]).toMatch(/dominated by lo/)
    // When the baseline dominates the target-metric winner, the gate fails.
    const bad = evaluateGate('pareto', { candidates: [combo('w', 1100, 25), combo('v', 900, 19)], baseline: { throughputTps: around(1200), latencyMs: around(20) }, metric: 'throughputTps' })
    expect(bad.passed).toBe(false)
    expect(bad.reasons[0]).toMatch(/dominated by baseline/)
  })

  it('regression: should fail the winner when any metric is worse than epsilon', () => {
    const r = evaluateGate('regression', { candidates: [combo('w', 1300, 21), combo('s', 1050, 19.9)], baseline, metric: 'throughputTps' })
    expect(r).toMatchObject({ passed: false, winner: 'w' })
    expect(r.perCombo.find((c) => c.comboHash === 'w')!.reasons[0]).toMatch(/latencyMs worse by 5.00%/)
    expect(r.perCombo.find((c) => c.comboHash === 's')!.passed).toBe(true)
    expect(evaluateGate('regression', { candidates: [combo('w', 1300, 21)], baseline, metric: 'throughputTps', epsilon: 0.06 }).passed).toBe(true)
  })

  it('manual: should decide nothing and surface every combo', () => {
    const r = evaluateGate('manual', { candidates: [combo('a', 1100, 19), combo('b', 900, 22)], baseline, metric: 'throughputTps' })
    expect(r).toMatchObject({ status: 'review', passed: false, winner: 'a' })
    expect(r.perCombo.map((c) => c.status)).toEqual(['review', 'review'])
    expect(r.perCombo[0]!.reasons.join(' ')).toMatch(/throughputTps 1100.\d vs baseline 1000.\d \(\+10.00%\)/)
  })

  it('should infer metric directions and refuse unknown ones and bad options', () => {
    expect(metricDirection('latencyMs')).toBe('lower')
    expect(metricDirection('p99_latency')).toBe('lower')
    expect(metricDirection('throughputTps')).toBe('higher')
    expect(metricDirection('score', { score: 'higher' })).toBe('higher')
    expect(() => metricDirection('score')).toThrow(/pass directions/)
    expect(() => evaluateGate('nope' as never, { candidates: [], baseline, metric: 'latencyMs' })).toThrow(/accepted: topk5, pareto, regression, manual/)
    expect(() => evaluateGate('topk5', { candidates: [], baseline, metric: 'latencyMs', k: 0 })).toThrow(/k must be/)
    expect(evaluateGate('topk5', { candidates: [], baseline, metric: 'latencyMs' }).passed).toBe(false)
  })
})
