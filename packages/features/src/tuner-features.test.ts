import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { isKerneltuneError } from '@kerneltune/core'
import { featuresBuilder, normParams, type RawFeatureInputs } from './builder.ts'
import { KERNEL_TYPES, TRUENO_QUANT_BYTES, TRUENO_QUANT_TYPES, kernelFromIndex } from './quant.ts'
import { DIM, FEATURE_NAMES, findProblem, fromVector, toVector, validate, type TunerFeatures } from './tuner-features.ts'

const errorOf = (fn: () => unknown): string => {
  try {
    fn()
  } catch (e) {
    expect(isKerneltuneError(e)).toBe(true)
    return (e as Error).message
  }
  throw new Error('expected an error')
}

describe('TunerFeatures layout', () => {
  it('should have DIM 42 and 42 distinct names in §A.3 order', () => {
    expect(DIM).toBe(42)
    expect(FEATURE_NAMES).toHaveLength(42)
    expect(new Set(FEATURE_NAMES).size).toBe(42)
    expect(FEATURE_NAMES[0]).toBe('model_params_b')
    expect(FEATURE_NAMES[11]).toBe('quant_Q4_0')
    expect(FEATURE_NAMES[19]).toBe('kernel_TiledQ4K')
    expect(FEATURE_NAMES[35]).toBe('gpu_mem_bw_norm')
    expect(FEATURE_NAMES[41]).toBe('theoretical_efficiency')
  })

  it('should keep the upstream enum index tables and bytes table', () => {
    expect(TRUENO_QUANT_TYPES).toEqual(['Q4_0', 'Q4_1', 'Q4K', 'Q5K', 'Q6K', 'Q8_0', 'F16', 'F32'])
    expect(TRUENO_QUANT_BYTES).toEqual([0.5625, 0.5625, 0.5625, 0.6875, 0.8125, 1, 2, 4])
    expect(KERNEL_TYPES.indexOf('FusedQKVHwDp4aQ4KGemv')).toBe(13)
    expect(KERNEL_TYPES.indexOf('Generic')).toBe(14)
    expect(kernelFromIndex(15)).toBe('Unknown')
    expect(kernelFromIndex(99)).toBe('Unknown')
    expect(kernelFromIndex(3)).toBe('BatchedQ4K')
  })
})

describe('featuresBuilder', () => {
  it('should give the documented unset values for a default builder', () => {
    const v = toVector(featuresBuilder().build())
    expect(v.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0])
    expect(v[6]).toBeCloseTo(1 / 64, 12)
    expect(v[7]).toBe(0)
    expect(v[9]).toBe(1)
    expect(v.slice(11, 35).every((x) => x === 0)).toBe(true)
    expect(v[35]).toBeCloseTo(1000 / 3000, 12)
    expect(v[36]).toBeCloseTo(0.2, 12)
    expect(v[37]).toBeCloseTo(0.64, 12)
    expect(v[38]).toBeCloseTo(0.375, 12)
    expect(v[40]).toBeCloseTo(0.35556, 5)
    expect(v[41]).toBe(0)
  })

  it('should apply the §A.3 formulas', () => {
    const f = featuresBuilder().modelParamsB(7).hiddenDim(4096).numLayers(32).numHeads(32).headDim(128).vocabSize(32000)
      .batchSize(4).seqLen(512).cudaGraphs(true).kvCaches(2).isPrefill(true).quantType('Q6K').kernelType('BatchedQ4K')
      .gpuMemBwGbs(1008).gpuComputeTflops(330).gpuSmCount(128).gpuL2CacheMb(72).zeroCopy(true).build()
    const v = toVector(f)
    expect(v[0]).toBeCloseTo(0.61503, 5)
    expect(v[1]).toBe(0.25)
    expect(v[2]).toBe(0.25)
    expect(v[3]).toBe(0.25)
    expect(v[4]).toBe(0.5)
    expect(v[5]).toBeCloseTo(Math.log10(32000) / 6, 12)
    expect(v[6]).toBe(4 / 64)
    expect(v[7]).toBeCloseTo(9 / 15, 12)
    expect([v[8], v[9], v[10]]).toEqual([1, 0.5, 1])
    expect(v[11 + 4]).toBe(1)
    expect(v[19 + 3]).toBe(1)
    expect(v[35]).toBeCloseTo(0.336, 12)
    expect(v[36]).toBeCloseTo(0.66, 12)
    expect(v[38]).toBeCloseTo(72 / 128, 12)
    expect(v[39]).toBe(1)
    expect(v[40]).toBeCloseTo(0.24615, 5)
  })

  it.each([
    ['Q4_0', 0.35556], ['Q4K', 0.35556], ['Q5K', 0.29091], ['Q6K', 0.24615], ['Q8_0', 0.2], ['F16', 0.1], ['F32', 0.05],
  ])('should set arithmetic intensity for %s to %s', (q, ai) => {
    expect(featuresBuilder().quantType(q).build().arithmeticIntensity).toBeCloseTo(ai, 5)
  })

  it('should reject negative params, bandwidth and TFLOPS with the upstream message', () => {
    expect(errorOf(() => featuresBuilder().modelParamsB(-1).tryBuild())).toBe('Invalid feature: model_params_b must be non-negative, got -1')
    expect(errorOf(() => featuresBuilder().gpuMemBwGbs(-2).build())).toContain('gpu_mem_bw_gbs must be non-negative, got -2')
    expect(errorOf(() => featuresBuilder().gpuComputeTflops(-0.5).build())).toContain('gpu_compute_tflops must be non-negative')
  })

  it('should clamp extreme and oversized inputs into [0,1] (F021–F040, generalization)', () => {
    const v = toVector(featuresBuilder().modelParamsB(100).hiddenDim(16384).batchSize(64).seqLen(32768).build())
    for (const x of v) expect(x >= -0.001 && x <= 1.001).toBe(true)
    const big = toVector(featuresBuilder().modelParamsB(1e6).hiddenDim(1e6).numLayers(1e4).batchSize(1e5).seqLen(1e9).gpuMemBwGbs(1e6).build())
    for (const x of big) expect(x >= 0 && x <= 1).toBe(true)
    expect(big[0]).toBe(1)
  })

  it('should compute theoretical efficiency from a measured throughput like the FeatureExtractor', () => {
    const f = featuresBuilder().modelParamsB(7).quantType('Q4K').gpuMemBwGbs(1008).measuredTps(128).build()
    expect(f.theoreticalEfficiency).toBeCloseTo(0.5, 10)
    expect(f.measuredTps).toBe(128)
  })

  it('should take GGUF spellings for the quantization', () => {
    expect(featuresBuilder().quantType('Q4_K_M').build().quantOneHot[2]).toBe(1)
    expect(featuresBuilder().quantType('BF16').build().quantOneHot[6]).toBe(1)
    expect(() => featuresBuilder().quantType('Q9_Z')).toThrow(/unknown quantization/)
  })
})

describe('validate', () => {
  const base = (): TunerFeatures => featuresBuilder().modelParamsB(7).quantType('Q4K').kernelType('TiledQ4K').build()

  it('should accept a built vector and all-zero one-hots', () => {
    expect(() => validate(base())).not.toThrow()
    expect(() => validate(featuresBuilder().build())).not.toThrow()
  })

  it('should report NaN, infinity, range, then quant, then kernel, in that order', () => {
    expect(errorOf(() => validate({ ...base(), modelParamsB: NaN }))).toBe('Invalid feature: NaN value in features')
    expect(errorOf(() => validate({ ...base(), hiddenDimNorm: Infinity, modelParamsB: NaN }))).toContain('NaN value')
    expect(errorOf(() => validate({ ...base(), hiddenDimNorm: Infinity, numLayersNorm: 2 }))).toBe('Invalid feature: Infinite value in features')
    expect(errorOf(() => validate({ ...base(), numLayersNorm: 1.01, quantOneHot: [1, 1, 0, 0, 0, 0, 0, 0] }))).toBe('Invalid feature: Feature value outside [0, 1]')
    expect(findProblem({ ...base(), numLayersNorm: 1.0009 })).toBeUndefined()
    expect(findProblem({ ...base(), numLayersNorm: -0.0011 })).toBe('range')
    const twoKernels = KERNEL_TYPES.map((_, i) => (i < 2 ? 1 : 0))
    expect(errorOf(() => validate({ ...base(), quantOneHot: [1, 1, 0, 0, 0, 0, 0, 0], kernelOneHot: twoKernels }))).toBe('Invalid feature: Quant one-hot does not sum to 1')
    expect(errorOf(() => validate({ ...base(), kernelOneHot: twoKernels }))).toBe('Invalid feature: Kernel one-hot does not sum to 1')
    expect(findProblem({ ...base(), quantOneHot: [0.0005, 0, 0, 0, 0, 0, 0, 0] })).toBeUndefined()
  })

  it('should make one-hot sums exactly 1 when set', () => {
    for (const q of TRUENO_QUANT_TYPES) {
      const f = featuresBuilder().quantType(q).kernelType('BatchedQ4K').build()
      expect(f.quantOneHot.reduce((a, b) => a + b, 0)).toBe(1)
      expect(f.kernelOneHot.reduce((a, b) => a + b, 0)).toBe(1)
    }
  })
})

const rawInputs: fc.Arbitrary<RawFeatureInputs> = fc.record(
  {
    modelParamsB: fc.double({ min: 0, max: 1e5, noNaN: true }),
    hiddenDim: fc.integer({ min: 0, max: 1 << 17 }),
    numLayers: fc.integer({ min: 0, max: 1024 }),
    numHeads: fc.integer({ min: 0, max: 1024 }),
    headDim: fc.integer({ min: 0, max: 2048 }),
    vocabSize: fc.integer({ min: 0, max: 1e7 }),
    batchSize: fc.integer({ min: 1, max: 4096 }),
    seqLen: fc.integer({ min: 0, max: 1 << 22 }),
    cudaGraphs: fc.boolean(),
    kvCaches: fc.integer({ min: 0, max: 4096 }),
    isPrefill: fc.boolean(),
    quant: fc.constantFrom(...TRUENO_QUANT_TYPES),
    kernel: fc.constantFrom(...KERNEL_TYPES),
    gpuMemBwGbs: fc.double({ min: 0, max: 1e5, noNaN: true }),
    gpuComputeTflops: fc.double({ min: 0, max: 1e5, noNaN: true }),
    gpuSmCount: fc.integer({ min: 0, max: 10_000 }),
    gpuL2CacheMb: fc.double({ min: 0, max: 4096, noNaN: true }),
    zeroCopy: fc.boolean(),
    measuredTps: fc.double({ min: 0, max: 1e6, noNaN: true }),
  },
  { requiredKeys: [] },
)

describe('TunerFeatures properties', () => {
  it('should always give 42 values in [0,1] that validate', () => {
    fc.assert(
      fc.property(rawInputs, (raw) => {
        const f = featuresBuilder(raw).build()
        const v = toVector(f)
        expect(v).toHaveLength(42)
        for (const x of v) expect(x >= 0 && x <= 1).toBe(true)
        expect(findProblem(f)).toBeUndefined()
      }),
      { numRuns: 300 },
    )
  })

  it('should round-trip fromVector(toVector(x))', () => {
    fc.assert(
      fc.property(rawInputs, (raw) => {
        const f = featuresBuilder(raw).build()
        expect(toVector(fromVector(toVector(f)))).toEqual(toVector(f))
      }),
      { numRuns: 200 },
    )
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 42, maxLength: 42 }), (v) => {
      expect(toVector(fromVector(v))).toEqual(v)
    }))
  })

  it('should make f0 monotone in the parameter count', () => {
    fc.assert(fc.property(fc.double({ min: 0, max: 1e4, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true }), (a, b) => {
      if (a <= b) expect(normParams(a)).toBeLessThanOrEqual(normParams(b))
    }))
  })

  it('should reject a vector of the wrong length', () => {
    expect(() => fromVector(new Array(41).fill(0))).toThrow(/expected 42/)
  })
})
