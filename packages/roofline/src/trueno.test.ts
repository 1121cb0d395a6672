import { describe, expect, it } from 'vitest'
import { featuresBuilder, toVector } from '@kerneltune/features'
import { truenoRooflineBound, truenoRooflineDetail, truenoRooflineFrom } from './trueno.ts'

describe('truenoRooflineBound (§A.4)', () => {
  it('should reproduce the worked value: 7B Q4K at 1008 GB/s, batch 1 → 256.0', () => {
    const d = truenoRooflineFrom({ paramsB: 7, quant: 'Q4K', memBwGbs: 1008, batch: 1 })
    expect(d.boundTps).toBe(256)
    expect(d.paramsB).toBeCloseTo(7, 6)
    expect(d.quant).toBe('Q4K')
    // F026: the theoretical value lies in (100, 500).
    expect(d.boundTps > 100 && d.boundTps < 500).toBe(true)
  })

  it('should give 2500 for the default builder (0.1B, all-zero quant one-hot read as F32 by the tie rule)', () => {
    const d = truenoRooflineDetail(featuresBuilder().build())
    expect(d.boundTps).toBeCloseTo(2500, 6)
    expect(d.quant).toBe('F32')
    expect(d.quantFromEmptyOneHot).toBe(true)
  })

  it('should scale with batch and clamp to [1, 10000]', () => {
    const b4 = truenoRooflineFrom({ paramsB: 7, quant: 'Q4_K', memBwGbs: 1008, batch: 4 })
    expect(b4.boundTps).toBeCloseTo(1024, 6)
    expect(truenoRooflineFrom({ paramsB: 0.5, quant: 'Q4_0', memBwGbs: 3000, batch: 64 }).boundTps).toBe(10000)
    expect(truenoRooflineFrom({ paramsB: 1000, quant: 'F32', memBwGbs: 1, batch: 1 }).boundTps).toBe(1)
  })

  it('should accept a raw vector and reject the wrong length', () => {
    const v = toVector(featuresBuilder().modelParamsB(7).quantType('Q8_0').gpuMemBwGbs(1008).build())
    expect(truenoRooflineBound(v)).toBeCloseTo(144, 6)
    expect(() => truenoRooflineBound([1, 2, 3])).toThrow(/expected 42/)
  })
})
