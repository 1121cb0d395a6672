import { describe, expect, it } from 'vitest'
import { pairedRatioInterval } from './ratio.ts'

// A seeded lognormal sampler: the truth (the ratio of the two medians) is known exactly.
function sampler(seed: number): () => number {
  let s = seed >>> 0
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
}

describe('pairedRatioInterval', () => {
  it('should give the geometric mean of the per-round ratios and an interval around it', () => {
    const r = pairedRatioInterval([10, 20, 40], [5, 10, 20])
    expect(r.ratio).toBeCloseTo(2, 12)
    // Identical log ratios: no spread, a zero-width interval.
    expect([r.low, r.high].map((x) => x.toFixed(9))).toEqual(['2.000000000', '2.000000000'])
    expect(r).toMatchObject({ n: 3, level: 0.95, baselineMedian: 20, candidateMedian: 10 })
  })

  it('should cover the true ratio in about 95% of experiments, and exclude 1 when the effect is real', () => {
    const z = sampler(7)
    let covered = 0
    let excludedOne = 0
    const trials = 400
    for (let t = 0; t < trials; t++) {
      // Candidate truly 1.10× faster; 5% multiplicative noise per measurement; 12 rounds.
      const base = Array.from({ length: 12 }, () => 10 * Math.exp(0.05 * z()))
      const cand = Array.from({ length: 12 }, () => (10 / 1.1) * Math.exp(0.05 * z()))
      const r = pairedRatioInterval(base, cand)
      if (r.low <= 1.1 && 1.1 <= r.high) covered++
      if (r.low > 1) excludedOne++
    }
    expect(covered / trials).toBeGreaterThan(0.92)
    expect(covered / trials).toBeLessThan(0.98)
    expect(excludedOne / trials).toBeGreaterThan(0.9)
  })

  it('should reject unpaired, short or non-positive input with a code', () => {
    expect(() => pairedRatioInterval([1, 2], [1])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
    expect(() => pairedRatioInterval([1], [1])).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_DATA' }))
    expect(() => pairedRatioInterval([1, 0], [1, 1])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
  })
})
