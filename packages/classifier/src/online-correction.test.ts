import { describe, expect, it } from 'vitest'
import { featuresBuilder, toVector } from '@kerneltune/features'
import { OnlineLearner } from '@kerneltune/regressor'
import { BrickTuner } from './brick-tuner.ts'
import { OnlineCorrectionLearner } from './online-correction.ts'

const f = featuresBuilder().modelParamsB(7).batchSize(4).quantType('Q4K').gpuMemBwGbs(1000).build()
const x = toVector(f)
const tps = (t: BrickTuner) => t.recommend(f).throughput.predictedTps

describe('BrickTuner online learning starts from the tuner\'s own model', () => {
  it('should keep the pretrained prediction after one observation equal to it', () => {
    const t = new BrickTuner()
    const before = tps(t)
    const l = t.onlineLearner()
    expect(l).toBeInstanceOf(OnlineCorrectionLearner)
    expect(l.predict(x)).toBeCloseTo(before, 9)
    expect(l.observe(x, before)).toBe(true)
    t.applyOnlineUpdates(l)
    expect(t.version).toBe('1.0.0-online-1')
    expect(tps(t)).toBeCloseTo(before, 9)
    expect(t.sampleCount).toBe(new BrickTuner().sampleCount + 1)
  })

  it('should move the prediction towards repeated measurements, and keep it through JSON', () => {
    const t = new BrickTuner()
    const before = tps(t)
    const l = t.onlineLearner({ learningRate: 0.01 })
    for (let i = 0; i < 20; i++) l.observe(x, before * 0.8)
    t.applyOnlineUpdates(l)
    const after = tps(t)
    expect(after).toBeLessThan(before)
    expect(Math.abs(after - before * 0.8)).toBeLessThan(Math.abs(before - before * 0.8))
    const back = BrickTuner.fromJSON(JSON.parse(JSON.stringify(t.toJSON())))
    expect(tps(back)).toBeCloseTo(after, 9)
    expect(back.version).toBe('1.0.0-online-20')
    // A second learner continues from the corrected model.
    const again = back.onlineLearner()
    expect(again.predict(x)).toBeCloseTo(after, 9)
  })

  it('should seed the heuristic\'s learner with the heuristic\'s own weights, as upstream', () => {
    const t = new BrickTuner({ throughput: 'heuristic' })
    const l = t.onlineLearner()
    expect(l).toBeInstanceOf(OnlineLearner)
    expect(l.weights()).toEqual([...(t.throughputModel as { weights: readonly number[] }).weights])
  })

  it('should refuse a learner that does not start from the tuner\'s learned model', () => {
    const t = new BrickTuner()
    const before = tps(t)
    const stray = new OnlineLearner()
    stray.observe(x, before)
    expect(() => t.applyOnlineUpdates(stray)).toThrow(/learned model .* tuner.onlineLearner\(\)/)
    expect(tps(t)).toBe(before)
    expect(t.version).toBe('1.0.0-pretrained')
  })
})
