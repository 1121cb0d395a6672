/** The Pareto plot's axis and noise logic (ui/plot-axes.ts), without a browser. */
import { describe, expect, it } from 'vitest'
import { decimalsFor, leftMarginFor, MIN_REL_HALF_SPAN, niceStep, noiseNote, planAxis } from '../ui/plot-axes.ts'

describe('planAxis', () => {
  it('does not stretch the issue\'s 0.2% simulated spread (207.75–208.15 tok/s) over the whole axis', () => {
    const y = planAxis([208.15, 207.75, 207.9], null)
    expect(y.band).toBeNull()
    expect(y.withinNoise).toBe(false)
    expect(y.spreadRel).toBeCloseTo(0.4 / 207.95, 6)
    // At least ±1% of the centre: the points take under a tenth of the axis.
    expect(y.domain[1] - y.domain[0]).toBeGreaterThanOrEqual(2 * MIN_REL_HALF_SPAN * 207.95)
    expect((208.15 - 207.75) / (y.domain[1] - y.domain[0])).toBeLessThan(0.1)
    expect(y.domain[0]).toBeLessThanOrEqual(207.75)
    expect(y.domain[1]).toBeGreaterThanOrEqual(208.15)
  })

  it('includes the noise band and says when every point lies inside it', () => {
    const y = planAxis([100, 100.3, 99.8], { centre: 100, relHalfWidth: 0.02, n: 5 })
    expect(y.band).toEqual([98, 102])
    expect(y.withinNoise).toBe(true)
    expect(y.domain[0]).toBeLessThanOrEqual(98)
    expect(y.domain[1]).toBeGreaterThanOrEqual(102)
  })

  it('is not within the noise when a point lies outside the band, and spans every point', () => {
    const y = planAxis([100, 120, 101], { centre: 100, relHalfWidth: 0.01, n: 5 })
    expect(y.withinNoise).toBe(false)
    expect(y.spreadRel).toBeCloseTo(0.2, 10)
    expect(y.domain[0]).toBeLessThanOrEqual(99)
    expect(y.domain[1]).toBeGreaterThanOrEqual(120)
  })

  it('draws no band for a zero-width noise (a prediction repeated)', () => {
    expect(planAxis([5, 5.01], { centre: 5, relHalfWidth: 0, n: 3 }).band).toBeNull()
  })

  it('puts ticks on exact multiples of the step, labelled with the decimals the step needs', () => {
    const x = planAxis([4.805, 4.814], null)
    const step = x.ticks[1]! - x.ticks[0]!
    expect(x.labels.every((l) => l.split('.')[1]?.length === x.decimals || (x.decimals === 0 && !l.includes('.')))).toBe(true)
    expect(x.labels.join(' ')).not.toMatch(/0000|9999/)
    expect(x.domain).toEqual([x.ticks[0], x.ticks.at(-1)])
    expect(decimalsFor(step)).toBe(x.decimals)
  })
})

describe('planAxis with a lower bound (issue 34 item 13: no axis to −1,000 ms or −400 tokens/s)', () => {
  // The reported run's baseline: 3 repetitions on a loaded 2-core machine, a 95% interval of ±215%.
  const latency = { centre: 480, relHalfWidth: 2.15, n: 3 }
  const throughput = { centre: 11.2, relHalfWidth: 2.15, n: 3 }

  it('without a bound, a noise band wider than its centre takes the axis below zero (what the plot drew)', () => {
    expect(planAxis([480, 350, 900], latency).domain[0]).toBeLessThan(-500)
    expect(planAxis([11.2, 65.3, 2.1], throughput).domain[0]).toBeLessThan(0)
  })

  it('starts a latency and a throughput axis at 0 at the lowest, and cuts the band there', () => {
    for (const [values, noise] of [[[480, 350, 900], latency], [[11.2, 65.3, 2.1], throughput]] as const) {
      const a = planAxis(values, noise, { min: 0 })
      expect(a.domain[0]).toBe(0)
      expect(a.ticks.every((t) => t >= 0)).toBe(true)
      expect(a.band![0]).toBe(0)
      expect(a.band![1]).toBeCloseTo(noise.centre * (1 + noise.relHalfWidth), 9)
      expect(a.bandClipped).toBe(true)
      // The band lies inside the axis, and so does every point.
      expect(a.band![0]).toBeGreaterThanOrEqual(a.domain[0])
      expect(a.band![1]).toBeLessThanOrEqual(a.domain[1])
      expect(values.every((v) => v >= a.domain[0] && v <= a.domain[1])).toBe(true)
      expect(noiseNote('p95 latency', a, noise, false)).toContain('drawn from 0 up: no value lies below it')
    }
  })

  it('leaves an axis far from the bound as it was, and moves a widened one up whole', () => {
    const noise = { centre: 100, relHalfWidth: 0.02, n: 5 }
    expect(planAxis([100, 100.3, 99.8], noise, { min: 0 })).toEqual(planAxis([100, 100.3, 99.8], noise))
    expect(planAxis([100, 100.3, 99.8], noise, { min: 0 }).bandClipped).toBe(false)
    // Two zeros: the ±1 minimum span would run from −1; it runs from 0 instead, as wide.
    const z = planAxis([0, 0], null, { min: 0 })
    expect(z.domain[0]).toBe(0)
    expect(z.domain[1]).toBeGreaterThanOrEqual(2)
  })
})

describe('niceStep and decimalsFor', () => {
  it.each([[0, 10, 2], [0, 1, 0.2], [205, 211, 1], [0, 0.04, 0.01], [0, 75000, 20000]])('niceStep(%d, %d) = %d', (lo, hi, step) => {
    expect(niceStep(lo, hi)).toBeCloseTo(step, 12)
  })
  it.each([[5, 0], [1, 0], [0.5, 1], [0.2, 1], [0.1, 1], [0.05, 2], [0.01, 2], [0.002, 3]])('decimalsFor(%d) = %d', (step, d) => {
    expect(decimalsFor(step)).toBe(d)
  })
})

describe('leftMarginFor', () => {
  it('keeps Plot\'s 40px for short labels and widens for long ones', () => {
    expect(leftMarginFor(['0', '10'])).toBe(40)
    expect(leftMarginFor(['208.15'])).toBeGreaterThan(40)
    expect(leftMarginFor(['75,000.00'])).toBeGreaterThan(leftMarginFor(['208.15']))
  })
})

describe('noiseNote', () => {
  it('says a spread inside the noise is one, with the band it used', () => {
    const noise = { centre: 100, relHalfWidth: 0.02, n: 5 }
    expect(noiseNote('Throughput', planAxis([100, 100.3], noise), noise, false))
      .toBe('Throughput: all candidates within measurement noise (±2.0%, the baseline\'s 95% interval over 5 repetitions); the spread of 0.30% is not a difference this run can tell apart.')
    expect(noiseNote('Throughput', planAxis([100, 110], noise), noise, false)).toMatch(/^Throughput: spread 10\.0%, beyond the measurement noise \(±2\.0%/)
  })
  it('calls a simulated spread the model\'s, and says when there is no noise estimate', () => {
    expect(noiseNote('Throughput', planAxis([207.75, 208.15], null), null, true)).toMatch(/the 0\.19% spread is the model's, not a measurement: nothing was run/)
    expect(noiseNote('p95 latency', planAxis([1, 2], null), null, false)).toMatch(/no noise estimate/)
  })
})
