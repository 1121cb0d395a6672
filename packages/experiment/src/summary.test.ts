import { describe, expect, it } from 'vitest'
import { summarizeMetric, summarizeRepetitions } from './summary.ts'

describe('summarizeRepetitions', () => {
  it('should summarize each metric present, with a 95% interval around the mean', () => {
    const s = summarizeRepetitions([
      { latencyMs: 10, decodeTps: 100, ttftMs: 5 },
      { latencyMs: 12, decodeTps: 110, ttftMs: 6 },
      { latencyMs: 11, decodeTps: 120 },
    ])
    expect(s.decodeTps).toMatchObject({ n: 3, mean: 110, median: 110, min: 100, max: 120, sd: 10 })
    expect(s.decodeTps!.ci95!.low).toBeLessThan(110)
    expect(s.decodeTps!.ci95!.high).toBeGreaterThan(110)
    expect(s.ttftMs!.n).toBe(2)
    expect(s.prefillTps).toBeUndefined()
  })

  it('should give no interval for a single repetition', () => {
    expect(summarizeMetric([3])).toMatchObject({ n: 1, mean: 3, sd: 0 })
    expect(summarizeMetric([3])!.ci95).toBeUndefined()
    expect(summarizeMetric([])).toBeUndefined()
  })
})
