import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { lnGamma, regularizedBeta, regularizedGammaP } from './special.ts'
import { normalCdf, normalQuantile, studentTCdf, studentTPdf, studentTQuantile, studentTTwoSided } from './distributions.ts'

const near = (actual: number, expected: number, tol: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol)

describe('special functions', () => {
  it('should match ln((n−1)!) and ln√π', () => {
    for (let n = 1; n <= 20; n++) {
      let f = 0
      for (let k = 2; k < n; k++) f += Math.log(k)
      near(lnGamma(n), f, 1e-12 * Math.max(1, f))
    }
    near(lnGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14)
  })

  it('should satisfy I_x(1,1) = x, I_x(a,1) = x^a and the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.double({ min: 0.1, max: 50, noNaN: true }), fc.double({ min: 0.1, max: 50, noNaN: true }), (x, a, b) => {
        near(regularizedBeta(x, 1, 1), x, 1e-14)
        near(regularizedBeta(x, a, 1), x ** a, 1e-12)
        near(regularizedBeta(x, a, b) + regularizedBeta(1 - x, b, a), 1, 1e-12)
      }),
    )
  })

  it('should give P(1, x) = 1 − e^{−x}', () => {
    for (const x of [0.01, 0.5, 1, 3, 10, 40]) near(regularizedGammaP(1, x), 1 - Math.exp(-x), 1e-14)
  })
})

describe('normal distribution', () => {
  it('should match reference values of Φ and Φ⁻¹', () => {
    // Φ(1.96), Φ(−1) and the 97.5% quantile from standard tables (Abramowitz & Stegun 26.2).
    near(normalCdf(1.96), 0.9750021048517795, 1e-14)
    near(normalCdf(-1), 0.15865525393145707, 1e-14)
    near(normalCdf(0), 0.5, 1e-16)
    near(normalQuantile(0.975), 1.959963984540054, 1e-12)
    // Deep tail keeps relative precision: Φ(−10) ≈ 7.6198530241605e−24.
    near(normalCdf(-10) / 7.6198530241605e-24, 1, 1e-10)
  })

  it('should invert: Φ(Φ⁻¹(p)) = p', () => {
    fc.assert(fc.property(fc.double({ min: 1e-12, max: 1 - 1e-12, noNaN: true }), (p) => {
      near(normalCdf(normalQuantile(p)), p, 1e-13 + 1e-12 * p)
    }))
  })
})

describe('Student t distribution', () => {
  it('should reproduce printed t-table quantiles', () => {
    // Two-sided critical values as printed (3 decimals) in standard t tables.
    const table: [number, number, number][] = [
      [0.975, 10, 2.228], [0.975, 1, 12.706], [0.95, 5, 2.015], [0.995, 30, 2.750], [0.975, 120, 1.980], [0.9, 2, 1.886], [0.975, 4, 2.776],
    ]
    for (const [p, df, t] of table) near(studentTQuantile(p, df), t, 0.0006)
  })

  it('should equal the Cauchy CDF at df = 1 and the closed form at df = 2', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 1e4, noNaN: true }), (t) => {
        near(studentTCdf(t, 1), 0.5 + Math.atan(t) / Math.PI, 1e-13)
        near(studentTCdf(t, 2), 0.5 + t / (2 * Math.sqrt(2 + t * t)), 1e-13)
      }),
    )
  })

  it('should be symmetric: F(t) + F(−t) = 1, and F(0) = ½', () => {
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), fc.double({ min: 0.5, max: 500, noNaN: true }), (t, df) => {
        near(studentTCdf(t, df) + studentTCdf(-t, df), 1, 1e-13)
        near(studentTCdf(0, df), 0.5, 1e-15)
        near(studentTTwoSided(t, df), 2 * studentTCdf(-Math.abs(t), df), 1e-13)
      }),
    )
  })

  it('should tend to the normal distribution as df → ∞', () => {
    for (const t of [-4, -1.96, -0.5, 0.3, 1, 2.5]) {
      const gaps = [10, 100, 1000, 1e5, 1e7].map((df) => Math.abs(studentTCdf(t, df) - normalCdf(t)))
      for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeLessThanOrEqual(gaps[i - 1]! + 1e-15)
      expect(gaps[gaps.length - 1]!).toBeLessThan(1e-7)
    }
    near(studentTQuantile(0.975, 1e7), 1.959963984540054, 1e-5)
  })

  it('should invert its CDF and have a density that integrates to the CDF', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }), fc.double({ min: 1, max: 200, noNaN: true }), (p, df) => {
        const q = studentTQuantile(p, df)
        near(studentTCdf(q, df), p, 1e-11)
      }),
      { numRuns: 60 },
    )
    // Trapezoid integral of the density on [−1, 2] at df = 3.
    const n = 20000
    let s = 0
    for (let i = 0; i <= n; i++) s += (i === 0 || i === n ? 0.5 : 1) * studentTPdf(-1 + (3 * i) / n, 3)
    near((s * 3) / n, studentTCdf(2, 3) - studentTCdf(-1, 3), 1e-8)
  })

  it('should reject bad arguments', () => {
    expect(() => studentTCdf(1, 0)).toThrow(/degrees of freedom/)
    expect(() => studentTQuantile(1.5, 3)).toThrow(/p in \[0, 1\]/)
  })
})
