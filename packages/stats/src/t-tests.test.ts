import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { mulberry32 } from '@kerneltune/core'
import { differenceInterval, trimmedMeanTest, welchTTest, yuenTTest } from './t-tests.ts'
import { confidenceInterval, trimmedConfidenceInterval } from './interval.ts'
import { cohensD, effectLabel } from './effect-size.ts'

const near = (actual: number, expected: number, tol: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol)
// Samples with some spread, so that the statistics are defined.
const sample = fc.array(fc.integer({ min: -100_000, max: 100_000 }).map((x) => x / 100), { minLength: 3, maxLength: 30 }).filter((xs) => new Set(xs).size > 1)

// A seeded generator (mulberry32) and Box–Muller normals, so the simulations are deterministic.
const rng = mulberry32
function normals(next: () => number, n: number, mu: number, sigma: number): number[] {
  return Array.from({ length: n }, () => mu + sigma * Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()))
}

describe('welchTTest', () => {
  it('should reproduce the worked examples of the Welch t-test article (Wikipedia), checked with scipy', () => {
    // Example 1: t = −2.46, ν ≈ 24.99, p = 0.021; example 2: t = −1.57, ν ≈ 9.9, p = 0.149.
    const a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    const b1 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    const r1 = welchTTest(a1, b1)
    near(r1.t, -2.455356398286006, 1e-12)
    near(r1.df, 24.988529290231416, 1e-10)
    near(r1.pValue, 0.021378001462866992, 1e-12)
    const a2 = [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8]
    const b2 = [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8]
    const r2 = welchTTest(a2, b2)
    near(r2.t, -1.5654335235985037, 1e-12)
    near(r2.df, 9.904741248650831, 1e-10)
    near(r2.pValue, 0.14884169660532817, 1e-12)
    // Yuen's test at 20% trimming on example 1 (scipy ttest_ind(..., equal_var=False, trim=0.2)).
    const y = yuenTTest(a1, b1, 0.2)
    near(y.t, -2.5860535197329266, 1e-12)
    near(y.df, 14.24052374944353, 1e-10)
    near(y.pValue, 0.021327670865044782, 1e-12)
  })

  it('should be antisymmetric and shift-invariant, with p in [0, 1]', () => {
    fc.assert(
      fc.property(sample, sample, fc.double({ min: -100, max: 100, noNaN: true }), (a, b, c) => {
        const ab = welchTTest(a, b)
        const ba = welchTTest(b, a)
        near(ab.t, -ba.t, 1e-9 * Math.max(1, Math.abs(ab.t)))
        near(ab.pValue, ba.pValue, 1e-12)
        expect(ab.pValue).toBeGreaterThanOrEqual(0)
        expect(ab.pValue).toBeLessThanOrEqual(1)
        const shifted = welchTTest(a.map((x) => x + c), b.map((x) => x + c))
        near(shifted.t, ab.t, 1e-6 * Math.max(1, Math.abs(ab.t)))
      }),
    )
  })

  it("should equal Welch's test when Yuen's test trims nothing", () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const w = welchTTest(a, b)
        const y = yuenTTest(a, b, 0)
        near(y.t, w.t, 1e-9 * Math.max(1, Math.abs(w.t)))
        near(y.df, w.df, 1e-9 * w.df)
        near(y.pValue, w.pValue, 1e-12)
      }),
    )
  })

  it('should handle constant samples', () => {
    expect(welchTTest([1, 1, 1], [1, 1])).toMatchObject({ t: 0, pValue: 1 })
    expect(welchTTest([2, 2, 2], [1, 1])).toMatchObject({ t: Infinity, pValue: 0 })
    expect(() => welchTTest([1], [1, 2])).toThrow(/at least 2/)
  })

  it('should hold its 5% false-positive rate under the null with unequal variances (simulation)', () => {
    const next = rng(42)
    let rejections = 0
    const runs = 4000
    for (let i = 0; i < runs; i++) {
      if (welchTTest(normals(next, 6, 10, 1), normals(next, 9, 10, 3)).pValue < 0.05) rejections++
    }
    // Binomial(4000, 0.05) has sd ≈ 0.0034; allow about 3 sd.
    near(rejections / runs, 0.05, 0.011)
  })
})

describe('confidence intervals', () => {
  it('should reach the nominal 95% coverage for normal samples (simulation)', () => {
    const next = rng(7)
    let covered = 0
    let coveredTrimmed = 0
    const runs = 4000
    for (let i = 0; i < runs; i++) {
      const xs = normals(next, 12, 5, 2)
      const ci = confidenceInterval(xs)
      if (ci.low <= 5 && 5 <= ci.high) covered++
      const ti = trimmedConfidenceInterval(xs, 0.1)
      if (ti.low <= 5 && 5 <= ti.high) coveredTrimmed++
    }
    near(covered / runs, 0.95, 0.011)
    near(coveredTrimmed / runs, 0.95, 0.015)
  })

  it('should contain the centre, widen with the level and match the untrimmed interval at trim 0', () => {
    fc.assert(
      fc.property(sample, (xs) => {
        const c90 = confidenceInterval(xs, 0.9)
        const c99 = confidenceInterval(xs, 0.99)
        expect(c90.low).toBeLessThanOrEqual(c90.center)
        expect(c99.halfWidth).toBeGreaterThan(c90.halfWidth)
        near(trimmedConfidenceInterval(xs, 0).halfWidth, confidenceInterval(xs).halfWidth, 1e-9 * Math.max(1, c90.halfWidth))
      }),
    )
  })

  it('should give a difference interval that excludes 0 exactly when p < 1 − level', () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const w = welchTTest(a, b)
        const ci = differenceInterval(w, 0.95)
        if (Math.abs(w.pValue - 0.05) > 1e-9) expect(ci.low > 0 || ci.high < 0).toBe(w.pValue < 0.05)
      }),
    )
  })
})

describe('cohensD', () => {
  it('should match a hand computation and be antisymmetric and scale-free', () => {
    // Means 2 and 4, both sample variances 1 → pooled sd 1 → d = −2.
    expect(cohensD([1, 2, 3], [3, 4, 5])).toBe(-2)
    fc.assert(
      fc.property(sample, sample, fc.double({ min: 0.01, max: 100, noNaN: true }), (a, b, k) => {
        near(cohensD(a, b), -cohensD(b, a), 1e-9)
        near(cohensD(a.map((x) => x * k), b.map((x) => x * k)), cohensD(a, b), 1e-6 * Math.max(1, Math.abs(cohensD(a, b))))
      }),
    )
    expect([0.1, 0.3, 0.6, 1.2].map(effectLabel)).toEqual(['negligible', 'small', 'medium', 'large'])
  })
})

describe('trimmedMeanTest', () => {
  it("should reproduce Wilcox's trimci formula (20% trimming, winsorized variance, h − 1 df), checked with numpy/scipy", () => {
    // Twelve log ratios with two wild values (2.4 and −0.9): the trimmed test sees the consistent
    // +15%, the plain t-test (p = 0.28) does not.
    const x = [0.12, -0.05, 0.31, 0.08, 2.4, 0.15, -0.9, 0.22, 0.05, 0.18, 0.11, 0.27]
    const r = trimmedMeanTest(x, 0.2)
    near(r.difference, 0.1475, 1e-12)
    near(r.standardError, 0.03836872542721599, 1e-12)
    near(r.t, 3.844276773795936, 1e-9)
    expect(r.df).toBe(7)
    near(r.pValue, 0.006339286553126419, 1e-9)
  })

  it('should be the one-sample t-test when nothing is trimmed', () => {
    const x = [1.2, 0.8, 1.1, 0.9, 1.3]
    const r = trimmedMeanTest(x, 0.1) // floor(0.5) = 0 values cut
    const m = x.reduce((a, b) => a + b, 0) / x.length
    const sd = Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1))
    near(r.t, m / (sd / Math.sqrt(x.length)), 1e-12)
    expect(r.df).toBe(4)
    expect(() => trimmedMeanTest([1], 0.2)).toThrow()
  })
})
