import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { getHardwarePreset, modelSpecFromPreset } from '@kerneltune/features'
import { decodeBound, kvBytesPerToken, paramsReadPerStep, prefillBound, ridgePoint, type RooflineModel } from './bounds.ts'
import { bytesPerWeight } from './bytes.ts'

const H100 = getHardwarePreset('h100-sxm')!
const RTX4090 = getHardwarePreset('rtx-4090')!
const llama8b = modelSpecFromPreset('llama-3-8b', 'Q4_K')

describe('decodeBound', () => {
  it('should give 256.0 tok/s for 7B Q4_K at 1008 GB/s, batch 1, memory-bound', () => {
    const d = decodeBound({ paramsB: 7, quant: 'Q4_K' }, { memBwGbs: 1008, fp16Tflops: 330.3 }, { batch: 1 })
    expect(d.boundTps).toBeCloseTo(256.0, 6)
    expect(d.binding).toBe('memory')
    expect(d.explanation).toMatch(/^memory-bound: .*below the ridge point/)
  })

  it('should count Q8_0 at its real 34/32 bytes (not upstream 1.0)', () => {
    const d = decodeBound({ paramsB: 7, quant: 'Q8_0' }, { memBwGbs: 1008, fp16Tflops: 330 })
    expect(d.boundTps).toBeCloseTo(1008 / (7 * 1.0625), 6)
  })

  it('should add each sequence\'s KV cache at the context length', () => {
    const kv = kvBytesPerToken(llama8b)!
    expect(kv).toBe(2 * 32 * 8 * 128 * 2)
    const d = decodeBound(llama8b, RTX4090, { batch: 4, contextLength: 2048 })
    expect(d.kvBytesPerStep).toBe(4 * 2048 * kv)
    expect(d.boundTps).toBeCloseTo((1008e9 * 4) / d.bytesPerStep, 6)
    const noKv = decodeBound(llama8b, RTX4090, { batch: 4, contextLength: 0 })
    expect(noKv.boundTps).toBeGreaterThan(d.boundTps)
  })

  it('should read only the active experts of a MoE model at batch 1, and more at larger batches', () => {
    const mixtral = modelSpecFromPreset('mixtral-8x7b', 'Q4_K')
    const one = paramsReadPerStep(mixtral, 1).params
    expect(one / 1e9).toBeCloseTo(mixtral.activeParamsB! - (32000 - 1) * 4096 / 1e9, 6)
    expect(paramsReadPerStep(mixtral, 64).params).toBeGreaterThan(one)
    expect(paramsReadPerStep(mixtral, 10_000).params / 1e9).toBeCloseTo(mixtral.paramsB - (32000 - 10_000) * 4096 / 1e9, 3)
  })

  it('should become compute-bound at a large enough batch', () => {
    const d = decodeBound({ paramsB: 7, quant: 'F16' }, { memBwGbs: 3350, fp16Tflops: 10 }, { batch: 512 })
    expect(d.binding).toBe('compute')
    expect(d.explanation).toContain('above the ridge point')
  })

  it('should reject non-positive inputs', () => {
    expect(() => decodeBound({ paramsB: 0, quant: 'F16' }, H100)).toThrow(/paramsB must be a positive number/)
    expect(() => decodeBound({ paramsB: 7, quant: 'F16' }, { memBwGbs: -1, fp16Tflops: 1 })).toThrow(/memBwGbs/)
  })
})

describe('prefillBound', () => {
  it('should be compute-bound for a long prompt on an H100 and memory-bound for a 1-token prompt', () => {
    const long = prefillBound(llama8b, H100, { batch: 1, contextLength: 2048 })
    expect(long.binding).toBe('compute')
    expect(long.boundTps).toBeCloseTo(long.computeBoundTps, 6)
    expect(long.computeBoundTps).toBeLessThan((H100.fp16Tflops * 1e12) / (2 * llama8b.paramsB * 1e9))
    const short = prefillBound(llama8b, H100, { batch: 1, contextLength: 1 })
    expect(short.binding).toBe('memory')
  })

  it('should report the ridge point and arithmetic intensity', () => {
    expect(ridgePoint(H100)).toBeCloseTo(989.4e12 / 3350e9, 9)
    const p = prefillBound(llama8b, H100, { contextLength: 512 })
    expect(p.arithmeticIntensity).toBeCloseTo(p.flopsPerStep / p.bytesPerStep, 9)
    expect(p.ridgePoint).toBeCloseTo(ridgePoint(H100), 9)
  })
})

const models: fc.Arbitrary<RooflineModel> = fc.record({
  paramsB: fc.double({ min: 0.1, max: 500, noNaN: true }),
  quant: fc.constantFrom('Q4_0', 'Q4_K', 'Q6_K', 'Q8_0', 'F16', 'IQ2_XS', 'BF16'),
  numLayers: fc.integer({ min: 1, max: 128 }),
  numHeads: fc.constantFrom(8, 16, 32, 64),
  numKvHeads: fc.constantFrom(1, 2, 8),
  headDim: fc.constantFrom(64, 128, 256),
})
const hw = fc.record({ memBwGbs: fc.double({ min: 10, max: 10_000, noNaN: true }), fp16Tflops: fc.double({ min: 1, max: 3000, noNaN: true }) })

describe('roofline properties', () => {
  it('should be monotone in bandwidth and in batch, and never above the bandwidth bound', () => {
    fc.assert(
      fc.property(models, hw, fc.integer({ min: 1, max: 256 }), fc.integer({ min: 0, max: 32768 }), fc.double({ min: 1, max: 4, noNaN: true }), (m, h, batch, ctx, k) => {
        const base = decodeBound(m, h, { batch, contextLength: ctx })
        const faster = decodeBound(m, { ...h, memBwGbs: h.memBwGbs * k }, { batch, contextLength: ctx })
        const bigger = decodeBound(m, h, { batch: batch + 1, contextLength: ctx })
        expect(faster.boundTps).toBeGreaterThanOrEqual(base.boundTps * (1 - 1e-12))
        expect(bigger.boundTps).toBeGreaterThanOrEqual(base.boundTps * (1 - 1e-12))
        const weightsOnly = (h.memBwGbs * 1e9 * batch) / (m.paramsB * 1e9 * bytesPerWeight(m.quant))
        expect(base.boundTps).toBeLessThanOrEqual(weightsOnly * (1 + 1e-12))
        expect(base.boundTps).toBeLessThanOrEqual(base.memoryBoundTps * (1 + 1e-12))
        expect(base.boundTps).toBe(Math.min(base.memoryBoundTps, base.computeBoundTps))
        const pf = prefillBound(m, h, { batch, contextLength: Math.max(ctx, 1) })
        expect(pf.boundTps).toBeLessThanOrEqual(pf.memoryBoundTps * (1 + 1e-12))
      }),
      { numRuns: 300 },
    )
  })
})
