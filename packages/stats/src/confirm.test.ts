/**
 * The confirmation logic on synthetic timings whose truth is known: latencies are drawn from
 * seeded lognormal distributions, so "no true difference" and "1.3× faster" are facts, and the
 * tests check that selection alone overstates the winner while confirmation does not.
 */
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '@kerneltune/core'
import { confirmVerdict, runConfirmation } from './confirm.ts'
import { median } from './descriptive.ts'

function normal(seed: number): () => number {
  const u = mulberry32(seed)
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
}

// One timing batch of a config whose true median latency is `ms`: the median of 10 runs with 5% noise.
const batch = (z: () => number, ms: number) => median(Array.from({ length: 10 }, () => ms * Math.exp(0.05 * z())))

describe('runConfirmation', () => {
  it('should find no reliable win for a selection winner that has no true advantage', async () => {
    const z = normal(42)
    const trials = 200
    let selectionSum = 0
    let containsOne = 0
    let verdictNoWin = 0
    for (let t = 0; t < trials; t++) {
      // Selection: 16 configs, all truly 10 ms; config 0 is the default. The winner is the lowest median.
      const medians = Array.from({ length: 16 }, () => batch(z, 10))
      const winner = medians.indexOf(Math.min(...medians))
      selectionSum += medians[0]! / medians[winner]!
      // Confirmation: both re-timed afresh from the same (identical) distributions.
      const c = await runConfirmation(async () => batch(z, 10), { rounds: 12, seed: t })
      if (c.low <= 1 && 1 <= c.high) containsOne++
      if (c.verdict === 'no-reliable-win') verdictNoWin++
    }
    // Selection alone reports a speed-up although there is none: the winner's curse.
    expect(selectionSum / trials).toBeGreaterThan(1.02)
    // Fresh measurements: the 95% interval contains the truth (1) about 95% of the time.
    expect(containsOne / trials).toBeGreaterThan(0.9)
    expect(verdictNoWin).toBe(containsOne)
  })

  it('should confirm a true 1.3× speed-up with an interval around 1.3', async () => {
    const z = normal(3)
    const c = await runConfirmation(async (which) => batch(z, which === 'baseline' ? 13 : 10), { rounds: 20 })
    expect(c.verdict).toBe('faster')
    expect(c.low).toBeLessThan(1.3)
    expect(c.high).toBeGreaterThan(1.3)
    expect(c.speedup).toBeGreaterThan(1.25)
    expect(c.speedup).toBeLessThan(1.35)
    expect(c.baselineMedianMs / c.candidateMedianMs).toBeCloseTo(1.3, 1)
  })

  it('should call a slower candidate slower', async () => {
    const z = normal(5)
    const c = await runConfirmation(async (which) => batch(z, which === 'baseline' ? 10 : 12), { rounds: 10 })
    expect(c.verdict).toBe('slower')
    expect(c.high).toBeLessThan(1)
  })

  it('should interleave in a random, seeded order so that drift does not favour either side', async () => {
    // Every measurement is 1% slower than the one before; the two configs are otherwise identical.
    let calls = 0
    const drifting = async () => 10 * 1.01 ** calls++
    const c = await runConfirmation(drifting, { rounds: 30, seed: 9 })
    expect(calls).toBe(60)
    expect(c.low).toBeLessThanOrEqual(1)
    expect(c.high).toBeGreaterThanOrEqual(1)
    const firsts = c.firstInRound.filter((f) => f === 'baseline').length
    expect(firsts).toBeGreaterThan(5)
    expect(firsts).toBeLessThan(25)
    calls = 0
    expect((await runConfirmation(drifting, { rounds: 30, seed: 9 })).firstInRound).toEqual(c.firstInRound)
  })

  it('should pair each round\'s two values and keep at least 2 rounds', async () => {
    const c = await runConfirmation(async (which) => (which === 'baseline' ? 20 : 10), { rounds: 1 })
    expect(c.rounds).toBe(2)
    expect(c.baselineMs).toEqual([20, 20])
    expect(c.candidateMs).toEqual([10, 10])
    expect(c.speedup).toBeCloseTo(2, 12)
  })
})

describe('confirmVerdict', () => {
  it.each([
    [1.01, 1.2, 'faster'],
    [0.99, 1.2, 'no-reliable-win'],
    [0.8, 1, 'no-reliable-win'],
    [0.8, 0.95, 'slower'],
  ] as const)('should read [%s, %s] as %s', (low, high, verdict) => {
    expect(confirmVerdict(low, high)).toBe(verdict)
  })
})
