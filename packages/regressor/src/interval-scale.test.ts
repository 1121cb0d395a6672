import { describe, expect, it } from 'vitest'
import { chooseInterval, coverageOfRows, heldOutIntervals, intervalRegime, scaleOf, supportBucket, supportKey, supportTable, type HeldOutRow } from './intervals.ts'
import { parseQuery } from './query.ts'
import { pretrainedModel } from './pretrained.ts'

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

describe('support buckets (issue 38)', () => {
  it('should key a query by device class, backend and build age, and bucket the training chips of that key', () => {
    const q = parseQuery({ paramsB: 8, quant: 'Q4_0', memBwGbs: 1008, tflops: 330, vendor: 'nvidia', backend: 'vulkan' })
    expect(supportKey(q)).toBe('nvidia-gddr|vulkan|current')
    expect(supportKey(parseQuery({ ...q, engineEra: 'legacy' }))).toBe('nvidia-gddr|vulkan|legacy')
    expect([0, 1, 2, 9].map(supportBucket)).toEqual(['n0', 'n1', 'n2', 'n2'])
    const table = supportTable([{ query: q, chip: 'a' }, { query: q, chip: 'a' }, { query: q, chip: 'b' }, { query: parseQuery({ ...q, backend: 'cuda' }), chip: 'a' }])
    expect(table).toEqual({ 'nvidia-gddr|cuda|current': 1, 'nvidia-gddr|vulkan|current': 2 })
    const base = { phase: 'decode', batch: 1, paramsB: 8 }
    expect(intervalRegime(base, true, 1)).toBe(`${intervalRegime(base)}|n1|x`)
  })

  // Ten chips of 20 decode rows: eight of a well-known kind with small errors, two of an unknown kind with large ones.
  const rows = (near: boolean): HeldOutRow[] => Array.from({ length: 200 }, (_, i) => {
    const chip = Math.floor(i / 20)
    const far = chip >= 8
    const u = ((i * 37) % 20) / 19 - 0.5 // evenly spread in [−0.5, 0.5]
    const residual = (far ? 1.2 : 0.12) * u
    return { group: `c${chip}`, cls: 'x', regime: intervalRegime({ phase: 'decode', batch: 1, paramsB: 8 }, false, near ? (far ? 0 : 5) : undefined), phase: 'decode', measured: 100 * Math.exp(residual), predicted: 100, bound: 1e9 }
  })

  it('should take the support buckets when, on held-out chips, they cover in band with narrower intervals', () => {
    const how = chooseInterval(rows(false), rows(true))
    expect(how.support).toBe(true)
    const widths = (set: HeldOutRow[], p: number) => coverageOfRows(set.map((_, i) => i), heldOutIntervals(set, 0.9, { decode: p, prefill: p })).medianRelativeWidth
    expect(widths(rows(true), how.weighting.decode)).toBeLessThan(widths(rows(false), how.weighting.decode))
  })

  it('should keep the plain regimes when the buckets add nothing', () => {
    expect(chooseInterval(rows(false), rows(false)).support).toBe(false)
  })
})

describe('a prediction under an interval state with support buckets (issue 38)', () => {
  it('should scale its interval by the bucket of its kind and backend in the state\'s support table', () => {
    const base = pretrainedModel()
    const q = { paramsB: 8, quant: 'Q4_0', memBwGbs: 1008, tflops: 330, vendor: 'nvidia' as const, backend: 'cuda' as const, batch: 1, phase: 'decode' as const }
    const key = supportKey(parseQuery(q))
    const iv = base.json.interval!
    const state = (chips: number) => ({ ...iv, support: { [key]: chips }, scale: { ...iv.scale!, cells: { [intervalRegime({ ...q, engineEra: 'current' }, false, 5)]: 0.1, [intervalRegime({ ...q, engineEra: 'current' }, false, 0)]: 0.8 } } })
    const width = (chips: number) => {
      const p = base.with({ interval: state(chips) }).predict(q)
      return (p.interval!.high - p.interval!.low) / p.predictedTps
    }
    // Many chips of its kind in training: the narrow cell; none: the wide one (the bound may cap the top).
    expect(width(5)).toBeLessThan(width(0))
    expect(width(5)).toBeCloseTo(Math.exp(iv.decode.high * 0.1) - Math.exp(iv.decode.low * 0.1), 9)
  })
})
