import { describe, expect, it } from 'vitest'
import { getHardwarePreset } from './hardware/presets.ts'
import { modelSpecFromPreset } from './model/presets.ts'
import { DEFAULT_RUN_CONFIG, featuresFrom, featuresFromRunConfig, fromEnv } from './from-spec.ts'
import { toVector, validate } from './tuner-features.ts'

describe('featuresFrom', () => {
  it('should fill the vector from a model, hardware and workload', () => {
    const f = featuresFrom({ model: modelSpecFromPreset('llama-3-8b', 'Q4_K_M'), hardware: getHardwarePreset('h100-sxm'), workload: { batch: 4, contextLength: 1024 } })
    validate(f)
    const v = toVector(f)
    expect(v[1]).toBe(4096 / 16384)
    expect(v[4]).toBe(128 / 256)
    expect(v[6]).toBe(4 / 64)
    expect(v[7]).toBeCloseTo(10 / 15, 12)
    expect(v[11 + 2]).toBe(1)
    expect(v[35]).toBeCloseTo(3350 / 3000 > 1 ? 1 : 3350 / 3000, 12)
    expect(v[37]).toBe(132 / 200)
    expect(v[38]).toBe(50 / 128)
  })

  it('should use active parameters for mixture-of-experts and mark unified memory as zero-copy', () => {
    const f = featuresFrom({ model: modelSpecFromPreset('mixtral-8x7b'), hardware: getHardwarePreset('m2-ultra') })
    const dense = featuresFrom({ model: { paramsB: 12.88, quant: 'Q4_K' } })
    expect(f.modelParamsB).toBeCloseTo(dense.modelParamsB, 3)
    expect(f.isZeroCopy).toBe(1)
  })
})

describe('fromEnv', () => {
  it('should build from KERNELTUNE_* variables and name a bad one', () => {
    const f = fromEnv({ KERNELTUNE_MODEL: 'llama-2-7b', KERNELTUNE_HARDWARE: 'rtx-4090', KERNELTUNE_BATCH: '8', KERNELTUNE_CUDA_GRAPHS: '1' })
    expect(f.batchSizeNorm).toBe(8 / 64)
    expect(f.cudaGraphs).toBe(1)
    expect(f.gpuMemBwNorm).toBeCloseTo(1008 / 3000, 12)
    expect(fromEnv({ KERNELTUNE_PARAMS_B: '7' }).modelParamsB).toBeCloseTo(0.61503, 5)
    expect(() => fromEnv({ KERNELTUNE_BATCH: 'many' })).toThrow(/KERNELTUNE_BATCH/)
    expect(() => fromEnv({ KERNELTUNE_HARDWARE: 'nope' })).toThrow(/unknown hardware/)
  })
})

describe('RunConfig', () => {
  it('should keep upstream defaults', () => {
    expect(DEFAULT_RUN_CONFIG).toMatchObject({ modelParamsB: 1.5, hiddenDim: 1536, numLayers: 28, numHeads: 12, batchSize: 1, seqLen: 1, cudaGraphs: false, quant: 'Q4K', kernel: 'VectorizedQ4K' })
    const f = featuresFromRunConfig()
    expect(f.kernelOneHot[2]).toBe(1)
    expect(f.hiddenDimNorm).toBe(1536 / 16384)
  })
})
