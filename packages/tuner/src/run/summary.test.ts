import { describe, expect, it } from 'vitest'
import { noiseOf } from './summary.ts'

describe('noiseOf (the baseline noise the dashboard draws)', () => {
  it('should give the 95% t-interval of the mean and the CV, absolute and relative', () => {
    // mean 100, sample sd 2 (values 98, 100, 102), t(0.975, 2) = 4.302653: half-width 4.302653 * 2 / sqrt(3).
    const n = noiseOf([98, 100, 102])
    expect(n.n).toBe(3)
    expect(n.mean).toBe(100)
    expect(n.halfWidth).toBeCloseTo((4.302653 * 2) / Math.sqrt(3), 4)
    expect(n.relHalfWidth).toBeCloseTo(n.halfWidth / 100, 10)
    expect(n.cv).toBeCloseTo(0.02, 10)
    expect(n.level).toBe(0.95)
  })

  it('should report 0, not NaN, for a zero mean, and 0 spread for repeated values', () => {
    expect(noiseOf([-1, 1]).relHalfWidth).toBe(0)
    expect(noiseOf([5, 5, 5])).toMatchObject({ halfWidth: 0, relHalfWidth: 0, cv: 0 })
  })
})
