import { describe, expect, it } from 'vitest'
import { mulberry32 } from '@kerneltune/core'
import { trimmedMean } from './descriptive.ts'
import { describePMethod, signFlipDistribution, signFlipMethod, signFlipPValue, signFlipTest, signFlipTrimmedMeanDistribution } from './sign-flip.ts'

const sum = (d: readonly number[]) => d.reduce((a, b) => a + b, 0)

describe('signFlipTest', () => {
  it('should enumerate every sign pattern: [1, 2, 3] under the sum has |sums| 6,4,2,0,0,2,4,6', () => {
    const r = signFlipTest([1, 2, 3], sum)
    expect(r).toEqual({ statistic: 6, pValue: 2 / 8, patterns: 8, exact: true, pMethod: 'exact' })
    // The same values with other signs: |sum| = 0 is matched or exceeded by all 8 patterns.
    expect(signFlipTest([1, 2, -3], sum).pValue).toBe(1)
    expect(signFlipTest([-1, 2, 3], sum).pValue).toBe(4 / 8)
  })

  it('should give 2/2^n when every difference has the same sign, and count ties as extreme', () => {
    const d = [0.12, 0.2, 0.15, 0.09, 0.3, 0.11, 0.18, 0.14]
    expect(signFlipTest(d, sum).pValue).toBe(2 / 256)
    expect(signFlipTest(d.map((x) => -x), sum).pValue).toBe(2 / 256)
    // The 20% trimmed mean cuts the smallest |d| (0.09) whatever its sign, so flipping it ties:
    // 4 of the 256 patterns are as extreme.
    expect(signFlipTest(d, (x) => trimmedMean(x, 0.2)).pValue).toBe(4 / 256)
    // Five differences can never reach 0.05: the smallest p is 2/32.
    expect(signFlipTest([1, 1, 1, 1, 1], sum).pValue).toBe(2 / 32)
  })

  it('should approach the exact p-value with random patterns, reproducibly from the seed', () => {
    const next = mulberry32(3)
    const d = Array.from({ length: 16 }, () => next() - 0.35)
    const exact = signFlipTest(d, sum, { maxExact: 16 })
    const sampled = signFlipTest(d, sum, { maxExact: 10, resamples: 20000, seed: 9 })
    expect(exact.exact).toBe(true)
    expect(sampled.exact).toBe(false)
    expect(Math.abs(sampled.pValue - exact.pValue)).toBeLessThan(0.01)
    expect(signFlipTest(d, sum, { maxExact: 10, resamples: 20000, seed: 9 }).pValue).toBe(sampled.pValue)
  })

  // The default boundary is 14 differences (2^14 = 16,384 patterns); past it the p-value is a
  // resampled estimate, and everything that prints one must say so (issue 23 item 11).
  it.each([
    [1, 'exact', 2, 'exact (2^1 = 2 patterns)'],
    [7, 'exact', 128, 'exact (2^7 = 128 patterns)'],
    [14, 'exact', 16384, 'exact (2^14 = 16,384 patterns)'],
  ] as const)('should label the p-value of %i differences %s over all %i patterns', (n, method, patterns, words) => {
    const d = Array.from({ length: n }, (_, i) => 0.1 + i / 100)
    const r = signFlipTest(d, sum)
    expect(r).toMatchObject({ pMethod: method, patterns, exact: true })
    expect('resamples' in r || 'pFloor' in r).toBe(false)
    expect(describePMethod(r)).toBe(words)
    // All differences positive: exactly 2 of the 2^n patterns reach the observed |sum|.
    expect(r.pValue).toBe(2 / patterns)
  })

  it.each([15, 24, 40])('should label the p-value of %i differences resampled, with the count of patterns and the floor 1/(resamples + 1)', (n) => {
    const d = Array.from({ length: n }, (_, i) => 0.1 + i / 100)
    const r = signFlipTest(d, sum, { resamples: 10_000 })
    expect(r).toMatchObject({ pMethod: 'resampled', patterns: 10_000, resamples: 10_000, pFloor: 1 / 10_001, exact: false })
    expect(describePMethod(r)).toBe('resampled (10,000 patterns, p ≥ 1/10,001)')
    // Every difference positive: no random pattern is as extreme as the observed one (with these n,
    // all-positive or all-negative comes up with probability 2/2^n per draw), so p is the floor.
    expect(r.pValue).toBe(r.pMethod === 'resampled' ? r.pFloor : NaN)
    // The default number of resamples is 20,000.
    expect(signFlipTest(d, sum)).toMatchObject({ pMethod: 'resampled', resamples: 20_000, pFloor: 1 / 20_001 })
  })

  it('should give the method of a precomputed distribution (as the interleaved sweep reuses one)', () => {
    expect(signFlipMethod(signFlipTrimmedMeanDistribution([0.1, 0.2, 0.3, 0.4, 0.5], 0.2))).toEqual({ pMethod: 'exact', patterns: 32 })
    const many = Array.from({ length: 20 }, (_, i) => i + 1)
    expect(signFlipMethod(signFlipTrimmedMeanDistribution(many, 0.2, { resamples: 500 }))).toEqual({ pMethod: 'resampled', patterns: 500, resamples: 500, pFloor: 1 / 501 })
    expect(signFlipMethod(signFlipDistribution(many.slice(0, 16), sum, { maxExact: 16 }))).toEqual({ pMethod: 'exact', patterns: 2 ** 16 })
  })

  it('should reject a true null no more often than alpha, even under heavy-tailed noise', () => {
    const next = mulberry32(20261125)
    // Symmetric noise with wild values: a normal, times 6 one time in ten.
    const noise = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()) * (next() < 0.1 ? 6 : 1)
    let rejected = 0
    const trials = 1000
    for (let s = 0; s < trials; s++) {
      const d = Array.from({ length: 10 }, noise)
      if (signFlipTest(d, (x) => trimmedMean(x, 0.2)).pValue < 0.05) rejected++
    }
    // Exact test: the rate is at most 0.05 (discreteness makes it a little less); binomial sd 0.007.
    expect(rejected / trials).toBeLessThan(0.05 + 3 * 0.007)
  })

  it('should reuse one distribution for every re-signing of the same values', () => {
    const d = [0.5, -0.2, 0.9, 0.1, -0.4, 0.7]
    const dist = signFlipDistribution(d, sum)
    expect(signFlipPValue(sum(d), dist)).toBe(signFlipTest(d, sum).pValue)
    const flipped = d.map((x, i) => (i % 2 ? -x : x))
    expect(signFlipPValue(sum(flipped), dist)).toBe(signFlipTest(flipped, sum).pValue)
    expect(() => signFlipDistribution([], sum)).toThrow()
  })

  it('should compute the trimmed-mean distribution without sorting, to the same values as the generic one', () => {
    const next = mulberry32(11)
    for (const n of [1, 2, 5, 9, 13, 20, 33]) {
      const d = Array.from({ length: n }, () => (next() - 0.4) * (next() < 0.1 ? 10 : 1))
      if (n > 3) d[1] = -d[0]! // a tie in |d|
      for (const opts of [{}, { maxExact: 8, resamples: 3000, seed: 4 }]) {
        const fast = signFlipTrimmedMeanDistribution(d, 0.2, opts)
        const slow = signFlipDistribution(d, (x) => trimmedMean(x, 0.2), opts)
        expect(fast.exact).toBe(slow.exact)
        expect(fast.values.length).toBe(slow.values.length)
        if (slow.exact) fast.values.forEach((v, i) => expect(Math.abs(v - slow.values[i]!)).toBeLessThan(1e-12))
      }
    }
    // The random patterns differ in order of use, not in law: compare the p-values they give.
    const d = Array.from({ length: 30 }, (_, i) => Math.sin(i) + 0.3)
    const t = trimmedMean(d, 0.2)
    const pFast = signFlipPValue(t, signFlipTrimmedMeanDistribution(d, 0.2, { resamples: 20000 }))
    const pSlow = signFlipPValue(t, signFlipDistribution(d, (x) => trimmedMean(x, 0.2), { resamples: 20000 }))
    expect(Math.abs(pFast - pSlow)).toBeLessThan(0.01)
  })
})
