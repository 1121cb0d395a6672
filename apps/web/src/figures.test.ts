// The run view's figures with their units (ui/figures.ts), without a browser.
import { describe, expect, it } from 'vitest'
import type { RunCombo, RunVerdict } from '../ui/api-types.gen.ts'
import { bestText, intervalCell, isPaired, valueCell } from '../ui/figures.ts'

const combo = (comparison: Record<string, unknown> | null, throughputTps = 812.25): RunCombo => ({
  runId: 'r', index: 5, comboHash: 'h', combo: {}, status: 'measured', simulated: false, cached: false, isBaseline: false, repetitions: [],
  metrics: { throughputTps, latencyP50Ms: 10, latencyP95Ms: 12, latencyP99Ms: 13 }, comparison: comparison as RunCombo['comparison'], gate: null,
} as unknown as RunCombo)

describe('the combinations table\'s figures', () => {
  it('labels a paired (interleaved) interval as a ratio in percent, not in tokens/s (issue 34 item 11)', () => {
    const c = combo({ metric: 'decodeTps', design: 'interleaved', n: 3, improvement: 3.1, interval: { low: -0.52, high: 115.85 }, pValue: 0.25, verdict: 'indistinguishable', test: 'sign-flip' })
    expect(isPaired(c.comparison)).toBe(true)
    expect(intervalCell(c, 'throughputTps')).toBe('[-52.0%, +11585.0%] ratio to the baseline')
    // A paired comparison has no trimmed mean of its own: the value is the combination's throughput.
    expect(valueCell(c, 'throughputTps')).toBe('812.3 tokens/s')
  })

  it('gives a sequential difference the metric\'s unit', () => {
    const c = combo({ metric: 'latencyMs', trimmedMean: 41.27, interval: { low: -3.2, high: 0.41, center: 0, halfWidth: 1, level: 0.95 }, test: 'welch' })
    expect(isPaired(c.comparison)).toBe(false)
    expect(intervalCell(c, 'throughputTps')).toBe('[-3.20, 0.410] ms difference')
    expect(valueCell(c, 'throughputTps')).toBe('41.3 ms')
    expect(intervalCell(combo(null), 'throughputTps')).toBe('—')
  })
})

describe('bestText', () => {
  const verdict = (kind: RunVerdict['kind'], index: number | null): RunVerdict => ({
    kind, index, candidate: index === null ? 5 : null, decidedBy: 'objectives', headline: '', reasons: [], figures: [],
    best: { index: 5, quantity: 'goodput', value: 65.3, unit: 'requests/s' },
  })

  it('says a goodput in requests/s, and whether the verdict chose it', () => {
    expect(bestText(null, verdict('withheld', null), false)).toBe('goodput 65.3 requests/s, #5 (best candidate, not applied)')
    expect(bestText(null, verdict('winner', 5), false)).toBe('goodput 65.3 requests/s, #5 (the winner)')
  })

  it('says the streamed throughput in tokens/s while the run has no verdict', () => {
    expect(bestText(208.15, null, true)).toBe('208.2 tokens/s throughput (predicted)')
    expect(bestText(null, null, false)).toBe('—')
  })
})
