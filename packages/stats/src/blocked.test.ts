import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { mulberry32 } from '@kerneltune/core'
import { blockedComparison } from './blocked.ts'

const near = (actual: number, expected: number, tol: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol)

// Montgomery, Design and Analysis of Experiments, example 4.1 (vascular grafts): 6 batches (blocks)
// × 4 extrusion pressures (treatments). The book's ANOVA: SS_E 109.89 on 15 df, MSE 7.33.
// Rows are blocks, columns the pressures 8500 (control), 8700, 8900, 9100.
const GRAFTS = [
  [90.3, 92.5, 85.5, 82.5],
  [89.2, 89.5, 90.8, 89.5],
  [98.2, 90.6, 89.6, 85.6],
  [93.9, 94.7, 86.2, 87.4],
  [87.4, 87.0, 88.0, 78.9],
  [97.9, 95.8, 93.4, 90.7],
]

function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
}

describe('blockedComparison', () => {
  it('should reproduce the two-way ANOVA of a textbook block design, with p-values and intervals checked with scipy', () => {
    const r = blockedComparison(GRAFTS)
    expect(r.blocks).toBe(6)
    expect(r.df).toBe(15)
    near(r.residualVariance, 7.32575, 1e-9)
    expect(r.comparisons[0]).toBeUndefined()
    // scipy: d = mean difference, se = sqrt(2 MSE / 6), p = 2 t.sf(|t|, 15), interval d ± t.ppf(0.975, 15) se.
    const expected = [
      [-1.1333333333333375, 1.562663324797337, 0.47945665695245293, -4.46407136683555, 2.1974047001688746],
      [-3.9000000000000035, 1.562663324797337, 0.024712725333922658, -7.230738033502216, -0.5692619664977911],
      [-7.050000000000002, 1.562663324797337, 0.00041368537792739647, -10.380738033502213, -3.7192619664977893],
    ]
    expected.forEach(([d, se, p, lo, hi], k) => {
      const c = r.comparisons[k + 1]!
      near(c.difference, d!, 1e-12)
      near(c.standardError, se!, 1e-12)
      near(c.pValue, p!, 1e-10)
      near(c.interval.low, lo!, 1e-9)
      near(c.interval.high, hi!, 1e-9)
      expect(c.blocks).toBe(6)
    })
  })

  it('should cancel any block effect: adding a constant to a whole row changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 6, maxLength: 6 }), (shifts) => {
        const shifted = GRAFTS.map((row, i) => row.map((v) => v + shifts[i]!))
        const a = blockedComparison(GRAFTS)
        const b = blockedComparison(shifted)
        near(b.residualVariance, a.residualVariance, 1e-6)
        for (let j = 1; j < 4; j++) near(b.comparisons[j]!.difference, a.comparisons[j]!.difference, 1e-9)
      }),
    )
  })

  it('should pool more degrees of freedom than a paired test, and equal it with a single treatment', () => {
    // Control and one treatment: the additive model is the paired t-test (df = blocks − 1, the
    // residual variance is half the variance of the differences).
    const two = GRAFTS.map((row) => [row[0]!, row[3]!])
    const r = blockedComparison(two)
    const d = two.map(([c, t]) => t! - c!)
    const m = d.reduce((a, b) => a + b, 0) / d.length
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - m) ** 2, 0) / (d.length - 1))
    expect(r.df).toBe(5)
    near(r.comparisons[1]!.standardError, sd / Math.sqrt(d.length), 1e-12)
  })

  it('should compare a treatment that dropped out on the blocks it has, with the pooled variance of the complete ones', () => {
    const table = GRAFTS.map((row, i) => [...row, i < 3 ? row[0]! + 2 : undefined])
    const r = blockedComparison(table)
    expect(r.pooledTreatments).toEqual([0, 1, 2, 3])
    near(r.residualVariance, 7.32575, 1e-9)
    const late = r.comparisons[4]!
    expect(late.blocks).toBe(3)
    near(late.difference, 2, 1e-12)
    near(late.standardError, Math.sqrt((2 * 7.32575) / 3), 1e-9)
  })

  it('should refuse a table with too few blocks or no complete treatment, with a typed error', () => {
    expect(() => blockedComparison([[1, 2]])).toThrow(/2 blocks/)
    expect(() => blockedComparison([[1, 2], [1, undefined]])).toThrow(/complete treatment/)
    expect(() => blockedComparison(GRAFTS, { control: 9 })).toThrow(/control column/)
  })

  it('should keep its false-positive rate at alpha when every treatment is the control, under block drift larger than the noise', () => {
    const next = mulberry32(20261125)
    let significant = 0
    let tests = 0
    for (let s = 0; s < 2000; s++) {
      const table = Array.from({ length: 3 }, () => {
        const drift = 5 * normal(next)
        return Array.from({ length: 5 }, () => drift + normal(next))
      })
      const r = blockedComparison(table)
      for (const c of r.comparisons) if (c) (tests++, c.pValue < 0.05 && significant++)
    }
    // 8000 tests at alpha 0.05: 400 expected, binomial sd ≈ 19.5; ±5 sd.
    expect(significant / tests).toBeGreaterThan(0.05 - 5 * 0.0024)
    expect(significant / tests).toBeLessThan(0.05 + 5 * 0.0024)
  })

  it('should detect an effect at 3 blocks that a paired test per treatment misses more often', () => {
    const next = mulberry32(7)
    let blocked = 0
    let paired = 0
    const trials = 1000
    for (let s = 0; s < trials; s++) {
      const table = Array.from({ length: 3 }, () => {
        const drift = 5 * normal(next)
        return Array.from({ length: 5 }, (_, j) => drift + (j === 1 ? 2 : 0) + normal(next))
      })
      if (blockedComparison(table).comparisons[1]!.pValue < 0.05) blocked++
      if (blockedComparison(table.map((row) => [row[0]!, row[1]!])).comparisons[1]!.pValue < 0.05) paired++
    }
    // An effect of 2σ over 3 blocks: the power is 0.576 pooled (df 8) and 0.291 paired (df 2), from
    // scipy's noncentral t; 1000 trials give a binomial sd of about 0.016, so allow ±4 sd.
    near(blocked / trials, 0.576, 0.065)
    near(paired / trials, 0.291, 0.06)
  })
})
