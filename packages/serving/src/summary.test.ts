import { describe, expect, it } from 'vitest'
import { percentile, summarize } from './summary.ts'

describe('summarize', () => {
  it('should interpolate percentiles as numpy.percentile does', () => {
    // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) == [2.5, 3.7, 3.97]
    expect(percentile([1, 2, 3, 4], 50)).toBeCloseTo(2.5, 12)
    expect(percentile([1, 2, 3, 4], 90)).toBeCloseTo(3.7, 12)
    expect(percentile([1, 2, 3, 4], 99)).toBeCloseTo(3.97, 12)
  })

  it('should report the population standard deviation and the extremes', () => {
    const s = summarize([4, 1, 3, 2])
    expect(s.mean).toBe(2.5)
    expect(s.std).toBeCloseTo(Math.sqrt(1.25), 12)
    expect([s.min, s.max, s.count]).toEqual([1, 4, 4])
  })

  it('should give NaN, not zero, for an empty sample', () => {
    const s = summarize([])
    expect(s.count).toBe(0)
    expect(Number.isNaN(s.mean) && Number.isNaN(s.p99)).toBe(true)
  })
})
