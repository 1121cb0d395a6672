import { describe, expect, it } from 'vitest'
import { featuresBuilder, getHardwarePreset, toVector } from '@kerneltune/features'
import { truenoRooflineBound } from '@kerneltune/roofline'
import { heuristicModel, LearnedModel, OnlineLearner, pretrainedModel, pretrainedInfo, queryBound, queryFromFeatures } from './index.ts'

describe('heuristicModel (§A.4 worked values)', () => {
  it('should give raw 518.69, bound 2500 and confidence 0.85 for the default builder', () => {
    const f = featuresBuilder().build()
    const p = heuristicModel().predict(f)
    expect(p.rawTps).toBeCloseTo(518.69, 2)
    expect(p.rooflineTps).toBe(2500)
    expect(p.capped).toBe(false)
    expect(p.predictedTps).toBeCloseTo(518.69, 2)
    expect(p.confidence).toBeCloseTo(0.85, 10)
    expect(p.topFeatures.map(([n]) => n)).toEqual(['batch_size', 'gpu_mem_bw', 'model_params', 'cuda_graphs', 'gpu_sm_count'])
  })

  it('should clamp 7B Q4K at 1008 GB/s, batch 1 to 256.0 with confidence 0.765', () => {
    const f = featuresBuilder().modelParamsB(7).quantType('Q4K').gpuMemBwGbs(1008).batchSize(1).build()
    expect(f.modelParamsB).toBeCloseTo(0.61503, 5)
    const p = heuristicModel().predict(f)
    expect(p.rawTps).toBeCloseTo(426.83, 2)
    expect(p.predictedTps).toBe(256)
    expect(p.capped).toBe(true)
    expect(p.confidence).toBeCloseTo(0.765, 10)
  })

  it('should stay within 1.1 × the theoretical bound (F026) and inside (0, 10000)', () => {
    const f = featuresBuilder().modelParamsB(7).quantType('Q4K').gpuMemBwGbs(1008).build()
    const theoretical = truenoRooflineBound(f)
    expect(theoretical).toBeGreaterThan(100)
    expect(theoretical).toBeLessThan(500)
    expect(heuristicModel().predict(f).predictedTps).toBeLessThanOrEqual(1.1 * theoretical)
    for (const b of [featuresBuilder().modelParamsB(100).batchSize(64).seqLen(32768).hiddenDim(16384).build(), featuresBuilder().modelParamsB(0.001).build()]) {
      const p = heuristicModel().predict(b).predictedTps
      expect(p).toBeGreaterThan(0)
      expect(p).toBeLessThan(10000)
    }
  })

  it('should be monotone in batch and never lowered by CUDA graphs (§A.15)', () => {
    const at = (batch: number, graphs = false) => heuristicModel().predict(featuresBuilder().modelParamsB(1.5).quantType('Q4K').gpuMemBwGbs(1000).batchSize(batch).cudaGraphs(graphs).build()).predictedTps
    expect(at(1)).toBeLessThanOrEqual(at(4))
    expect(at(4)).toBeLessThanOrEqual(at(8))
    for (const b of [1, 4, 8]) expect(at(b, true)).toBeGreaterThanOrEqual(at(b))
  })
})

describe('pretrainedModel', () => {
  it('should load the shipped asset with its provenance and clamp by the roofline', () => {
    const m = pretrainedModel()
    expect(m.kind).toBe('physics')
    const info = pretrainedInfo() as { trainedOn: { file: string; used: number }[]; seed: number; scriptVersion: string }
    expect(info.trainedOn.some((f) => f.file === 'xiongjiedai_gpu_benchmarks_llamacpp.csv' && f.used > 0)).toBe(true)
    expect(typeof info.seed).toBe('number')
    // Our own H100 current-build rows (bench/results/gpu) are training rows too (issue 26).
    expect(info.trainedOn.find((f) => f.file === 'bench/results/gpu/predict-vs-measure.json')?.used).toBe(18)
    const q = { paramsB: 8, quant: 'Q4_K_M', memBwGbs: 1008, tflops: 330, batch: 1, phase: 'decode' as const }
    const p = m.predict(q)
    expect(p.kind).toBe('prediction')
    expect(p.predictedTps).toBeLessThanOrEqual(p.rooflineTps)
    expect(p.rooflineTps).toBeCloseTo(queryBound({ ...q, quant: 'Q4_K', promptTokens: 512, contextTokens: 0, unifiedMemory: false, vendor: 'other' }).boundTps, 6)
    expect(p.predictedTps).toBeGreaterThan(0.3 * p.rooflineTps)
  })

  it('should predict hardware absent from the data from its specifications alone', () => {
    const mi300x = getHardwarePreset('mi300x')!
    const p = pretrainedModel().predict({ paramsB: 70, quant: 'Q4_K', memBwGbs: mi300x.memBwGbs, tflops: mi300x.fp16Tflops, vendor: 'amd' })
    expect(p.predictedTps).toBeGreaterThan(0)
    expect(p.predictedTps).toBeLessThanOrEqual(p.rooflineTps)
    const faster = pretrainedModel().predict({ paramsB: 70, quant: 'Q4_K', memBwGbs: mi300x.memBwGbs * 2, tflops: mi300x.fp16Tflops, vendor: 'amd' })
    expect(faster.predictedTps).toBeGreaterThan(p.predictedTps)
  })

  it('should accept the 42-value vector, decoded as trueno decodes it', () => {
    const f = featuresBuilder().modelParamsB(7).quantType('Q4K').gpuMemBwGbs(1008).gpuComputeTflops(330).build()
    const q = queryFromFeatures(f)
    expect(q.paramsB).toBeCloseTo(7, 6)
    expect(q.quant).toBe('Q4_K')
    expect(q.memBwGbs).toBeCloseTo(1008, 6)
    expect(pretrainedModel().predict(f).predictedTps).toBeCloseTo(pretrainedModel().predict(q).predictedTps, 6)
  })

  it('should refuse a corrupted model file listing the problem', () => {
    const j = structuredClone(pretrainedModel().toJSON()) as Record<string, unknown>
    expect(() => LearnedModel.fromJSON({ ...j, version: 2 })).toThrow(/invalid throughput model/)
    expect(() => LearnedModel.fromJSON({ ...j, physics: undefined })).toThrow(/physics/)
  })
})

describe('OnlineLearner (§A.11, consistent units)', () => {
  it('should start from the pretrained weights: 0.36 (×1000 tok/s) on a zero vector, converging', () => {
    const l = new OnlineLearner()
    expect(l.predictScaled(new Array(42).fill(0))).toBeCloseTo(0.36, 12)
    expect(l.predict(new Array(42).fill(0))).toBeCloseTo(360, 9)
    expect(l.isConverging()).toBe(true)
  })

  it('should skip a dimension mismatch and learn toward repeated measurements', () => {
    const l = new OnlineLearner({ learningRate: 0.01 })
    expect(l.observe([1, 2, 3], 100)).toBe(false)
    expect(l.numUpdates()).toBe(0)
    const x = featuresBuilder().modelParamsB(7).batchSize(4).quantType('Q4K').gpuMemBwGbs(1000).build()
    const vec = toVector(x)
    const before = Math.abs(l.predict(vec) - 155)
    for (const t of [150, 155, 152, 158, 150, 155, 152, 158, 150, 155, 152, 158]) l.observe(vec, t)
    expect(l.numUpdates()).toBe(12)
    expect(Math.abs(l.predict(vec) - 155)).toBeLessThan(before)
    expect(l.emaLoss()).toBeGreaterThan(0)
  })
})
