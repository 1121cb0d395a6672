import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { compareToBaseline } from './compare.ts'
import { shouldStopEarly } from './early-stop.ts'

const sample = fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 3, maxLength: 20 }).filter((xs) => new Set(xs).size > 1)

describe('compareToBaseline', () => {
  it('should call a clearly lower latency better, and a clearly higher one worse', () => {
    const fast = [10.1, 10.3, 9.9, 10.0, 10.2, 10.1, 10.0]
    const slow = [11.0, 11.2, 10.9, 11.1, 11.3, 11.0, 11.1]
    const better = compareToBaseline(fast, slow, { higherIsBetter: false })
    expect(better).toMatchObject({ verdict: 'better', test: 'welch', n: 7, baselineN: 7, effect: 'large' })
    expect(better.improvement).toBeGreaterThan(0.08)
    expect(better.interval.high).toBeLessThan(0)
    expect(compareToBaseline(slow, fast, { higherIsBetter: false }).verdict).toBe('worse')
    expect(compareToBaseline(slow, fast, { higherIsBetter: true }).verdict).toBe('better')
  })

  it('should say indistinguishable for overlapping noisy samples, and use Yuen once values are trimmed', () => {
    const a = [10, 12, 9, 11, 13, 8, 10, 12, 11, 9]
    const b = [11, 9, 12, 10, 8, 13, 11, 10, 9, 12]
    const r = compareToBaseline(a, b, { higherIsBetter: true })
    expect(r.verdict).toBe('indistinguishable')
    expect(r.test).toBe('yuen')
  })

  it('should be consistent under swapping the two samples', () => {
    fc.assert(
      fc.property(sample, sample, fc.boolean(), (a, b, hib) => {
        const ab = compareToBaseline(a, b, { higherIsBetter: hib })
        const ba = compareToBaseline(b, a, { higherIsBetter: hib })
        const flip = { better: 'worse', worse: 'better', indistinguishable: 'indistinguishable' } as const
        expect(ba.verdict).toBe(flip[ab.verdict])
        expect(Math.sign(ab.delta)).toBe(-Math.sign(ba.delta))
      }),
    )
  })
})

describe('shouldStopEarly', () => {
  const tightA = [100.0, 100.2, 99.9, 100.1, 100.0]
  const tightB = [90.0, 90.1, 89.9, 90.2, 90.0]
  it('should stop when the leader is tight and separated', () => {
    const d = shouldStopEarly([{ id: 'a', samples: tightA }, { id: 'b', samples: tightB }], { higherIsBetter: true, noiseFloor: 0.01 })
    expect(d.stop).toBe(true)
    expect(d.leader).toBe('a')
    expect(d.reasons.join(' ')).toMatch(/overlaps no other/)
  })

  it('should keep going when the winner is ambiguous, the interval is wide, or samples are few', () => {
    const close = [100.1, 100.0, 100.2, 99.9, 100.1]
    expect(shouldStopEarly([{ id: 'a', samples: tightA }, { id: 'c', samples: close }], { higherIsBetter: true, noiseFloor: 0.01 }).stop).toBe(false)
    const wide = [80, 120, 95, 105, 100]
    const w = shouldStopEarly([{ id: 'w', samples: wide }, { id: 'b', samples: tightB.map((x) => x - 30) }], { higherIsBetter: true, noiseFloor: 0.01 })
    expect(w.stop).toBe(false)
    expect(w.reasons[0]).toMatch(/not below/)
    expect(shouldStopEarly([{ id: 'a', samples: [1, 2] }], { higherIsBetter: true, noiseFloor: 0.5 }).stop).toBe(false)
    // For latency, lower wins.
    expect(shouldStopEarly([{ id: 'a', samples: tightA }, { id: 'b', samples: tightB }], { higherIsBetter: false, noiseFloor: 0.01 }).leader).toBe('b')
    expect(() => shouldStopEarly([], { higherIsBetter: true, noiseFloor: 0 })).toThrow(/noiseFloor/)
  })
})
