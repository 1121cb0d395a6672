import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { searchCapacity } from './capacity.ts'
import { seededRandom } from './prng.ts'

/** A server whose objectives hold up to `capacity`; with noise, the measured load is off by a seeded factor. */
const synthetic = (capacity: number, noise = 0, seed = 1) => {
  const random = seededRandom(seed)
  return async (level: number) => {
    const seen = level * (1 + noise * (2 * random() - 1))
    return { feasible: seen <= capacity, figures: { seen } }
  }
}

describe('searchCapacity', () => {
  it('should bracket upward then bisect a rate to within the tolerance, keeping every measurement', async () => {
    const r = await searchCapacity({ unit: 'req/s', start: 1, measure: synthetic(6.3) })
    expect(r.stop).toBe('converged')
    expect(r.low).toBeLessThanOrEqual(6.3)
    expect(r.high!).toBeGreaterThan(6.3)
    expect(r.high! - r.low).toBeLessThanOrEqual(0.1 * r.low)
    expect(r.value).toBe(r.low)
    // 1, 2, 4, 8 bracket it; bisection levels lie strictly inside the bracket, once each without noise (majority of 3 decided after 2).
    expect(r.points.filter((p) => p.phase === 'bracket').map((p) => p.level)).toEqual([1, 2, 4, 8])
    const bisect = r.points.filter((p) => p.phase === 'bisect')
    expect(bisect.length).toBeGreaterThan(0)
    for (const p of bisect) expect(p.level > 4 && p.level < 8).toBe(true)
    expect(bisect.filter((p) => p.level === bisect[0]!.level)).toHaveLength(2)
  })

  it('should bracket downward when the start misses the objectives', async () => {
    const r = await searchCapacity({ unit: 'req/s', start: 16, measure: synthetic(1.5) })
    expect(r.points.filter((p) => p.phase === 'bracket').map((p) => p.level)).toEqual([16, 8, 4, 2, 1])
    expect(r.low).toBeLessThanOrEqual(1.5)
    expect(r.high!).toBeGreaterThan(1.5)
  })

  it('should find a concurrency exactly: the boundary between two whole numbers', async () => {
    const r = await searchCapacity({ unit: 'concurrency', start: 1, measure: synthetic(11) })
    expect(r).toMatchObject({ value: 11, low: 11, high: 12, unit: 'concurrency', stop: 'converged' })
  })

  it('should say when the top level still holds, and when even the bottom one misses', async () => {
    expect(await searchCapacity({ unit: 'concurrency', start: 2, max: 8, measure: synthetic(100) })).toMatchObject({ value: 8, low: 8, high: null, stop: 'max' })
    expect(await searchCapacity({ unit: 'req/s', start: 1, min: 0.5, measure: synthetic(0.1) })).toMatchObject({ value: null, low: 0, high: 0.5, stop: 'min' })
  })

  it('should stop at the measurement budget with the interval it has', async () => {
    const r = await searchCapacity({ unit: 'req/s', start: 1, maxMeasurements: 5, measure: synthetic(6.3) })
    expect(r.points).toHaveLength(5)
    expect(r.stop).toBe('budget')
    expect(r.low).toBe(4)
    expect(r.high).toBe(8)
  })

  it('should stop at the deadline with the interval it has, dropping a measurement the deadline cut short', async () => {
    // The caller's time runs out during the 5th measurement (1, 2, 4, 8 bracket 6.3; then bisection at 5.657).
    const deadline = new AbortController()
    let calls = 0
    const measure = synthetic(6.3)
    const r = await searchCapacity({
      unit: 'req/s', start: 1, deadline: deadline.signal,
      measure: async (level) => {
        if (++calls < 5) return measure(level)
        deadline.abort()
        throw new Error('the load was cancelled')
      },
    })
    expect(r).toMatchObject({ stop: 'deadline', value: 4, low: 4, high: 8 })
    expect(r.points.map((p) => p.level)).toEqual([1, 2, 4, 8])
    // Aborted before the search: nothing is measured, and nothing is known.
    const none = await searchCapacity({ unit: 'concurrency', start: 1, deadline: AbortSignal.abort(), measure: synthetic(4) })
    expect(none).toMatchObject({ stop: 'deadline', value: null, low: 0, high: null, points: [] })
    // A measurement that fails with the deadline still ahead is an error, as without one.
    await expect(searchCapacity({ unit: 'concurrency', start: 1, deadline: new AbortController().signal, measure: async () => Promise.reject(new Error('server died')) })).rejects.toThrow(/server died/)
  })

  it('should refuse bad options with a typed error', async () => {
    await expect(searchCapacity({ unit: 'req/s', start: 0, measure: synthetic(1) })).rejects.toMatchObject({ code: 'INVALID_INPUT' })
    await expect(searchCapacity({ unit: 'concurrency', start: 1.5, measure: synthetic(1) })).rejects.toThrow(/whole numbers/)
  })

  it('should land near the true capacity under 5% measurement noise, the majority keeping it within the noise band (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.5, max: 200, noNaN: true }), fc.integer({ min: 1, max: 1e6 }), async (capacity, seed) => {
        const r = await searchCapacity({ unit: 'req/s', start: 1, measure: synthetic(capacity, 0.05, seed) })
        // Noise of ±5% can move a single judgement by that much; the bracket then is at most 10% wide.
        expect(r.value).not.toBeNull()
        expect(r.value!).toBeGreaterThan(capacity / 1.06 / 1.1)
        expect(r.value!).toBeLessThan(capacity * 1.06)
        expect(r.high === null || r.high > r.low).toBe(true)
      }),
      { numRuns: 60 },
    )
  })

  it('should be closer to the truth with repeats at the boundary than with one measurement (noise 15%, 200 seeds)', async () => {
    const errorOf = async (repeats: number) => {
      let sum = 0
      for (let seed = 1; seed <= 200; seed++) {
        const r = await searchCapacity({ unit: 'req/s', start: 1, repeats, measure: synthetic(10, 0.15, seed) })
        sum += Math.abs(Math.log(r.value! / 10))
      }
      return sum / 200
    }
    expect(await errorOf(5)).toBeLessThan(await errorOf(1))
  })
})
