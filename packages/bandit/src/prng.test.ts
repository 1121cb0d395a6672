import { describe, expect, it } from 'vitest'
import { Prng } from './prng.ts'

const meanVar = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length
  return [m, xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length] as const
}

describe('Prng', () => {
  it('should give the same sequence for the same seed and resume from its state', () => {
    const a = Prng.fromSeed(42)
    const b = Prng.fromSeed(42)
    for (let i = 0; i < 10; i++) expect(a.nextU32()).toBe(b.nextU32())
    const c = Prng.fromState(JSON.parse(JSON.stringify(a.state())))
    for (let i = 0; i < 10; i++) expect(c.next()).toBe(a.next())
    expect(Prng.fromSeed(43).nextU32()).not.toBe(Prng.fromSeed(42).nextU32())
  })

  it('should draw uniforms in [0,1) with mean 1/2', () => {
    const r = Prng.fromSeed(1)
    const xs = Array.from({ length: 20000 }, () => r.next())
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    expect(meanVar(xs)[0]).toBeCloseTo(0.5, 1)
  })

  it('should draw standard normals, Gamma(k) with mean k and Beta(a,b) with mean a/(a+b)', () => {
    const r = Prng.fromSeed(7)
    const n = meanVar(Array.from({ length: 20000 }, () => r.normal()))
    expect(Math.abs(n[0])).toBeLessThan(0.03)
    expect(Math.abs(n[1] - 1)).toBeLessThan(0.05)
    for (const k of [0.5, 1, 3.5]) {
      const g = meanVar(Array.from({ length: 20000 }, () => r.gamma(k)))
      expect(Math.abs(g[0] - k) / k).toBeLessThan(0.05)
      expect(Math.abs(g[1] - k) / k).toBeLessThan(0.1)
    }
    const b = meanVar(Array.from({ length: 20000 }, () => r.beta(2, 5)))
    expect(b[0]).toBeCloseTo(2 / 7, 2)
    expect(Math.abs(b[1] - (2 * 5) / (49 * 8))).toBeLessThan(0.003)
  })

  it('should refuse an all-zero or malformed state', () => {
    expect(() => Prng.fromState({ algorithm: 'xoshiro128**', s: [0, 0, 0, 0] })).toThrow()
    expect(() => Prng.fromState({ algorithm: 'mt', s: [1, 2, 3, 4] })).toThrow(/invalid PRNG state/)
  })
})
