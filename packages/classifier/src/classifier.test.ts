import { describe, expect, it } from 'vitest'
import { featuresBuilder, toVector } from '@kerneltune/features'
import { OnlineLearner } from '@kerneltune/regressor'
import { BrickTuner, KernelForest, RECOMMENDED_ACTIONS, describeExperiment, ruleBottleneck, ruleKernel } from './index.ts'

const fb = () => featuresBuilder().modelParamsB(1.5).quantType('Q4K').gpuMemBwGbs(1000)

describe('rules (§A.5, §A.6, §A.15)', () => {
  it('should pick BatchedQ4K at batch 8 and the documented kernels below', () => {
    expect(ruleKernel(fb().batchSize(8).build()).topKernel).toBe('BatchedQ4K')
    expect(ruleKernel(fb().batchSize(2).build())).toEqual({ topKernel: 'VectorizedQ4K', confidence: 0.85, alternatives: [['CoalescedQ4K', 0.75], ['IncrementalAttention', 0.7]] })
    expect(ruleKernel(fb().cudaGraphs(true).build()).confidence).toBe(0.88)
    expect(ruleKernel(fb().seqLen(1024).build())).toEqual({ topKernel: 'CoalescedQ4K', confidence: 0.82, alternatives: [['VectorizedQ4K', 0.85], ['MultiWarpAttention', 0.7]] })
  })

  it('should classify batch 4 as MemoryBound, batch 1 as LaunchBound, long sequences as AttentionBound', () => {
    expect(ruleBottleneck(fb().batchSize(4).build()).class).toBe('MemoryBound')
    expect(ruleBottleneck(fb().build()).class).toBe('LaunchBound')
    const a = ruleBottleneck(fb().batchSize(2).seqLen(1024).build())
    expect(a.class).toBe('AttentionBound')
    expect(a.explanation).toBe('Long sequence (len=1024) likely makes attention the bottleneck')
    expect(ruleBottleneck(fb().bottleneckClass('ComputeBound').build()).confidence).toBe(0.95)
  })

  it('should carry the upstream action strings', () => {
    expect(RECOMMENDED_ACTIONS.MemoryBound).toContain('batch size')
    expect(RECOMMENDED_ACTIONS.LaunchBound).toContain('CUDA graphs')
    expect(RECOMMENDED_ACTIONS.AttentionBound).toContain('Flash Decoding')
  })
})

describe('BrickTuner (§A.7)', () => {
  it('should recommend with experiments and their display strings', () => {
    const rec = new BrickTuner().recommend(fb().batchSize(4).cudaGraphs(true).build())
    expect(rec.kernel.topKernel).toBe('BatchedQ4K')
    expect(rec.bottleneck.class).toBe('MemoryBound')
    expect(rec.suggestedExperiments).toEqual([{ IncreaseBatchSize: { from: 4, to: 8 } }, { TryKernel: 'BatchedQ4K' }, { EnableMultiKvCache: { count: 4 } }])
    expect(rec.experimentText).toEqual(['Increase batch size: M=4 → M=8', 'Try kernel: BatchedQ4K', 'Enable 4 separate KV caches for batched attention'])
    expect(rec.confidenceOverall).toBeCloseTo((rec.throughput.confidence + 0.9 + 0.85) / 3, 12)
    expect(rec.throughput.predictedTps).toBeLessThanOrEqual(rec.throughput.rooflineTps)
    const launch = new BrickTuner({ throughput: 'heuristic' }).recommend(fb().build())
    expect(launch.experimentText).toEqual(['Enable CUDA graphs for kernel launch amortization', 'Try kernel: FusedRmsNormQ4K'])
    expect(describeExperiment({ ReduceSequenceLength: { factor: 0.5 } })).toBe('Reduce sequence length by 50%')
  })

  it('should take a throughput predicted elsewhere in place of its own, in the overall confidence too', () => {
    const f = fb().batchSize(4).build()
    const own = new BrickTuner().recommend(f)
    const given = { ...own.throughput, predictedTps: 123, confidence: 0.3 }
    const rec = new BrickTuner().recommend(f, given)
    expect(rec.throughput).toBe(given)
    expect(rec.confidenceOverall).toBeCloseTo((0.3 + rec.kernel.confidence + rec.bottleneck.confidence) / 3, 12)
    expect({ ...rec, throughput: own.throughput, confidenceOverall: own.confidenceOverall }).toEqual(own)
  })

  it('should be monotone in batch, never lowered by CUDA graphs, positive on cold start (§A.15)', () => {
    for (const t of [new BrickTuner(), new BrickTuner({ throughput: 'heuristic' })]) {
      const at = (b: number, g = false) => t.recommend(fb().gpuComputeTflops(165).batchSize(b).cudaGraphs(g).build()).throughput.predictedTps
      expect(at(1)).toBeLessThanOrEqual(at(4))
      expect(at(4)).toBeLessThanOrEqual(at(8))
      expect(at(1, true)).toBeGreaterThanOrEqual(at(1))
      expect(t.recommend(featuresBuilder().build()).confidenceOverall).toBeGreaterThan(0)
    }
  })

  it('should round-trip through JSON keeping the version and the prediction', () => {
    const t = new BrickTuner()
    const f = fb().batchSize(2).build()
    const back = BrickTuner.fromJSON(JSON.parse(JSON.stringify(t.toJSON())))
    expect(back.version).toBe(t.version)
    expect(back.recommend(f)).toEqual(t.recommend(f))
    expect(() => BrickTuner.fromJSON({ ...t.toJSON(), format: 'x' })).toThrow(/invalid brick tuner/)
  })

  it('should apply online updates: version online-n and the sample count grows', () => {
    const t = new BrickTuner({ throughput: 'heuristic' })
    const l = new OnlineLearner()
    t.applyOnlineUpdates(l)
    expect(t.version).toBe('1.0.0')
    const x = toVector(featuresBuilder().modelParamsB(7).batchSize(4).quantType('Q4K').gpuMemBwGbs(1000).build())
    for (const y of [150, 155, 152, 158, 151]) l.observe(x, y)
    t.applyOnlineUpdates(l)
    expect(t.version).toBe('1.0.0-online-5')
    expect(t.sampleCount).toBe(5)
  })
})

describe('KernelForest', () => {
  it('should learn the batch rule from labelled rows and round-trip through JSON', () => {
    const data = Array.from({ length: 80 }, (_, i) => {
      const batch = 1 + (i % 8)
      return { features: fb().batchSize(batch).build(), kernel: batch >= 4 ? 'BatchedQ4K' as const : 'VectorizedQ4K' as const }
    })
    const kf = KernelForest.train(data, { nEstimators: 15, seed: 3 })
    expect(kf.predict(fb().batchSize(8).build()).topKernel).toBe('BatchedQ4K')
    expect(kf.predict(fb().batchSize(1).build()).topKernel).toBe('VectorizedQ4K')
    const r = kf.predict(fb().batchSize(6).build())
    expect(r.confidence).toBeGreaterThan(0.5)
    const back = KernelForest.fromJSON(JSON.parse(JSON.stringify(kf.toJSON())))
    expect(back.predict(fb().batchSize(2).build())).toEqual(kf.predict(fb().batchSize(2).build()))
    expect(() => KernelForest.train(data.slice(0, 5))).toThrow(/need >= 10/)
  })
})
