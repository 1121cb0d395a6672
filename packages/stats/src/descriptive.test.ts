import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { mean, median, percentile, standardDeviation, summarize, trim, trimmedMean, variance, winsorizedVariance } from './descriptive.ts'

const samples = fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 2, maxLength: 60 })
const near = (actual: number, expected: number, tol: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol)

describe('descriptive statistics', () => {
  it('should compute mean, variance and sd of a textbook sample', () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population sd 2, sample variance 32/7.
    const xs = [2, 4, 4, 4, 5, 5, 7, 9]
    expect(mean(xs)).toBe(5)
    near(variance(xs), 32 / 7, 1e-12)
    near(standardDeviation(xs), Math.sqrt(32 / 7), 1e-12)
  })

  it('should trim floor(10% × n) from each end by default', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1000]
    expect(trim(xs)).toEqual([2, 3, 4, 5, 6, 7, 8, 9])
    expect(trimmedMean(xs)).toBe(5.5)
    // scipy.stats.trim_mean(range(20), 0.1) == 9.5; with 7 samples 10% trims nothing.
    expect(trimmedMean(Array.from({ length: 20 }, (_, i) => i))).toBe(9.5)
    expect(trimmedMean([1, 2, 3, 4, 5, 6, 100])).toBe(mean([1, 2, 3, 4, 5, 6, 100]))
  })

  it('should interpolate percentiles like numpy (type 7)', () => {
    expect(percentile([1, 2, 3, 4], 25)).toBe(1.75)
    expect(median([3, 1, 2])).toBe(2)
    expect(percentile([5], 99)).toBe(5)
    const s = summarize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(s).toMatchObject({ n: 10, min: 1, max: 10, p50: 5.5 })
    near(s.p95, 9.55, 1e-12)
    near(s.p99, 9.91, 1e-12)
  })

  it('should keep the trimmed mean inside [min, max], shift-equivariant and order-free', () => {
    fc.assert(
      fc.property(samples, fc.double({ min: -1e3, max: 1e3, noNaN: true }), (xs, c) => {
        const tm = trimmedMean(xs)
        expect(tm).toBeGreaterThanOrEqual(Math.min(...xs) - 1e-9)
        expect(tm).toBeLessThanOrEqual(Math.max(...xs) + 1e-9)
        near(trimmedMean(xs.map((x) => x + c)), tm + c, 1e-6)
        near(trimmedMean([...xs].reverse()), tm, 1e-6)
      }),
    )
  })

  it('should give a winsorized variance no larger than the variance when trimming, equal when not', () => {
    fc.assert(
      fc.property(samples, (xs) => {
        near(winsorizedVariance(xs, 0), variance(xs), 1e-6 * Math.max(1, variance(xs)))
        expect(winsorizedVariance(xs, 0.2)).toBeLessThanOrEqual(variance(xs) * (1 + 1e-12) + 1e-9)
      }),
    )
  })

  it('should refuse NaN, too few values and a bad trim', () => {
    expect(() => mean([1, Number.NaN])).toThrow(/finite/)
    expect(() => variance([1])).toThrow(/at least 2/)
    expect(() => trimmedMean([1, 2], 0.5)).toThrow(/\[0, 0.5\)/)
  })
})
