import { describe, expect, it } from 'vitest'
import { LearnedModel, kernelFiguresQuery, predictLine, predictorFor, pretrainedModel, targetQuery, versionOf } from './index.ts'

describe('predictorFor', () => {
  it('should predict with the pretrained model by default, naming its version', () => {
    const p = predictorFor({})
    expect(p.name).toBe(`pretrained (${pretrainedModel().name})`)
    expect(p.modelVersion).toBe(versionOf(pretrainedModel(), pretrainedModel().name))
    expect(p.modelVersion).toMatch(/ v\d+\.\d+\.\d+ \(/)
  })

  it('should refuse --heuristic with a model file, and load a saved model under its file name', () => {
    expect(() => predictorFor({ heuristic: true, file: 'm.json' })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
    expect(predictorFor({ heuristic: true }).name).toBe('heuristic (trueno default)')
    const saved = pretrainedModel().toJSON()
    const p = predictorFor({ file: 'm.json', json: saved })
    expect(p.name).toBe(`${LearnedModel.fromJSON(saved).name} (m.json)`)
  })
})

describe('predictLine', () => {
  it('should predict a good line with its query and give a bad line its error', () => {
    const p = predictorFor({})
    const good = predictLine(p, '{"paramsB": 7, "memBwGbs": 1000, "tflops": 100}', 1)
    expect(good).toMatchObject({ line: 1, kind: 'prediction', modelVersion: p.modelVersion, query: { paramsB: 7 } })
    expect(predictLine(p, 'nope', 2)).toMatchObject({ line: 2, error: { code: 'INVALID_INPUT' } })
    expect(predictLine(p, '{"paramsB": -1}', 3)).toMatchObject({ line: 3, error: { code: 'INVALID_INPUT' } })
  })
})

describe('targetQuery', () => {
  it('should make a vendor the regressor does not know "other", and let extra fields win', () => {
    const t = { model: { paramsB: 7, quant: 'Q4_K' }, hardware: { memBwGbs: 1000, fp16Tflops: 100, vendor: 'google', tdpWatts: 300 }, workload: { batch: 2, phase: 'decode' as const, promptTokens: 512, contextTokens: 64 } }
    expect(targetQuery(t)).toMatchObject({ vendor: 'other', tflops: 100, tdpWatts: 300, batch: 2, contextTokens: 64, unifiedMemory: false })
    expect(targetQuery({ ...t, hardware: { ...t.hardware, vendor: 'amd' } }, { backend: 'vulkan' })).toMatchObject({ vendor: 'amd', backend: 'vulkan' })
    // An extra field given as undefined leaves what the target gives.
    expect(targetQuery(t, { vendor: undefined, tdpWatts: undefined, backend: undefined })).toEqual(targetQuery(t))
  })

  it('should take each kernel figure from the last source that gives it', () => {
    expect(kernelFiguresQuery({ int8Tops: 100, clockMhz: 2000 }, { int8Tops: 200, clockMhz: undefined, computeUnits: undefined })).toEqual({ int8Tops: 200, clockMhz: 2000 })
    expect(kernelFiguresQuery({})).toEqual({})
  })
})
