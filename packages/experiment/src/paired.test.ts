import { describe, expect, it } from 'vitest'
import { mulberry32 } from '@kerneltune/core'
import { compareRounds, pairedComparison, pValueMethod, SIGN_FLIP_RESAMPLES } from './paired.ts'

/** n rounds of (candidate, baseline) with the candidate about 5% faster and ±3% noise, seeded. */
function rounds(n: number, seed = 7): [number, number][] {
  const next = mulberry32(seed)
  return Array.from({ length: n }, () => [105 * (1 + (next() - 0.5) * 0.06), 100 * (1 + (next() - 0.5) * 0.06)])
}

// The sign-flip p-value enumerates all 2^n sign patterns up to 14 rounds and resamples 10,000
// random ones past that (stats' maxExact default); what is printed or stored must say which
// (issue 23 item 11: the docs called it exact for any number of rounds).
describe('the sign-flip p-value says how it was computed', () => {
  it.each([7, 10, 14])('should be exact over 2^n patterns with %i rounds', (n) => {
    const c = pairedComparison(rounds(n), true, 0.05, 'sign-flip')!
    expect(c).toMatchObject({ test: 'sign-flip', n, pMethod: 'exact', patterns: 2 ** n })
    expect(c.resamples).toBeUndefined()
    expect(c.pFloor).toBeUndefined()
    expect(pValueMethod(c)).toBe(`sign-flip exact (2^${n} = ${(2 ** n).toLocaleString('en-US')} patterns)`)
    // A p-value over all patterns is a multiple of 1/2^n.
    const k = c.pValue * 2 ** n
    expect(Math.abs(k - Math.round(k))).toBeLessThan(1e-6)
  })

  it.each([15, 20, 40])('should be resampled from 10,000 patterns, floor 1/10,001, with %i rounds', (n) => {
    const c = pairedComparison(rounds(n), true, 0.05, 'sign-flip')!
    expect(SIGN_FLIP_RESAMPLES).toBe(10_000)
    expect(c).toMatchObject({ test: 'sign-flip', n, pMethod: 'resampled', patterns: 10_000, resamples: 10_000, pFloor: 1 / 10_001 })
    expect(pValueMethod(c)).toBe('sign-flip resampled (10,000 patterns, p ≥ 1/10,001)')
    // (extreme + 1)/10,001: a multiple of the floor, and never below it.
    const k = c.pValue * 10_001
    expect(Math.abs(k - Math.round(k))).toBeLessThan(1e-6)
    expect(c.pValue).toBeGreaterThanOrEqual(1 / 10_001)
    expect(c.pValue).toBeLessThan(0.01)
  })

  it('should leave the method out of the t-based tests, whose p-value comes from the t distribution', () => {
    const paired = pairedComparison(rounds(20), true, 0.05, 'paired')!
    expect(paired.pMethod).toBeUndefined()
    expect(pValueMethod(paired)).toBe('t with 19 degrees of freedom')
    const table = rounds(6).map(([a, b]) => [b, a, a * 0.99])
    const blocked = compareRounds(table, true, 0.05, 'blocked')[1]!
    expect(blocked.pMethod).toBeUndefined()
    expect(pValueMethod(blocked)).toBe(`t with ${blocked.df} degrees of freedom`)
    // compareRounds passes the method through for every arm of the sign-flip test.
    expect(compareRounds(rounds(16).map(([a, b]) => [b, a]), true)[1]).toMatchObject({ pMethod: 'resampled', resamples: 10_000 })
  })
})
