import { describe, expect, it } from 'vitest'
import { intervalRegime, scaleOf } from './intervals.ts'

describe('scaleOf (issue 26)', () => {
  const q = { phase: 'decode', batch: 1, paramsB: 8 }
  const inside = intervalRegime(q)
  const outside = intervalRegime(q, true)

  it('never gives an extrapolating query a narrower scale than the same regime inside the data', () => {
    const scale = { cells: { [inside]: 0.5, [outside]: 0.3 }, decode: 0.4, prefill: 0.6, shrink: 20 }
    expect(outside).toBe(`${inside}|x`)
    expect(scaleOf(scale, outside, 'decode')).toBe(0.5)
    expect(scaleOf(scale, inside, 'decode')).toBe(0.5)
  })

  it('keeps an extrapolating regime\'s own scale when it is the wider one, and the phase mean for unseen cells', () => {
    expect(scaleOf({ cells: { [inside]: 0.5, [outside]: 0.9 }, decode: 0.4, prefill: 0.6, shrink: 20 }, outside, 'decode')).toBe(0.9)
    // No cell for the inside regime: the floor is the phase mean.
    expect(scaleOf({ cells: { [outside]: 0.3 }, decode: 0.4, prefill: 0.6, shrink: 20 }, outside, 'decode')).toBe(0.4)
    expect(scaleOf(undefined, outside, 'decode')).toBe(1)
  })
})
