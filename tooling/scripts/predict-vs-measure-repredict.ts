/**
 * Re-predicts the saved llama.cpp measurements of predict-vs-measure.ts with the current
 * pretrained model, measuring nothing: the measurements (and their date) stay those of the saved
 * run, the predictions, calibration and errors are recomputed. Used when the model changes and the
 * shared machine is too loaded for a clean re-measurement; the result says which is which.
 */
import { synthLlama, type SynthQuant } from '@kerneltune/gguf'
import { parseQuery, pretrainedInfo, pretrainedModel, queryBound, type ThroughputQueryInput } from '@kerneltune/regressor'
import { calibrateAndScore, shapeQuery } from './predict-vs-measure-calibration.ts'
import { PHASES, slim, type Phase, type ReportPoint } from './predict-vs-measure-point.ts'

const parse = (s: string) => Number(s.slice(0, -1)) * (s.endsWith('M') ? 1e6 : s.endsWith('B') ? 1e9 : 1)

// The saved result's shape (predict-vs-measure.ts writes it); only what is re-derived is typed.
interface Saved {
  date: string
  points: ReportPoint[]
  hardware: { query: Record<string, unknown> }
  calibration: { calibratedOn: string[] }
  [k: string]: unknown
}

export function repredict<T extends Saved>(saved: T) {
  const predictor = pretrainedModel()
  const hw = { ...saved.hardware.query, device: 'cpu' as const }
  const points = saved.points.map((p) => {
    // The shapes of the synthetic model (layers, KV and attention widths), from the same shape rule that wrote it (nothing is generated).
    const shape = shapeQuery(synthLlama({ params: parse(p.size), quant: p.quant as SynthQuant, seed: 1, vocabSize: 2048 }).shape)
    const query = Object.fromEntries(PHASES.map((ph) => [ph, { ...p.query[ph], ...hw, ...shape }])) as Record<Phase, ThroughputQueryInput>
    return {
      ...p, query,
      predicted: { decode: slim(predictor.predict(query.decode)), prefill: slim(predictor.predict(query.prefill)) },
      binding: { decode: queryBound(parseQuery(query.decode)).binding, prefill: queryBound(parseQuery(query.prefill)).binding },
    }
  })
  const { errors } = calibrateAndScore(predictor, points)
  const info = pretrainedInfo() as { hardware: string[]; sampleCount: number; scriptVersion: string; description: string }
  return {
    ...saved,
    measuredAt: saved.date,
    predictedAt: new Date().toISOString(),
    repredicted: 'measurements from the saved run (date above); predictions, calibration and errors recomputed with the current pretrained model',
    command: 'pnpm exec tsx --conditions=@kerneltune/source tooling/scripts/predict-vs-measure.ts --repredict --doc',
    predictor: { name: predictor.name, kind: 'pretrained', modelKind: predictor.kind, description: info.description, scriptVersion: info.scriptVersion, trainedOn: info.hardware, sampleCount: info.sampleCount },
    calibration: {
      ...saved.calibration,
      method: '@kerneltune/regressor calibrate, one fit per phase',
      factors: { decode: errors.decode.factor, prefill: errors.prefill.factor },
      overheadFactors: { decode: errors.decode.overheadFactor, prefill: errors.prefill.overheadFactor },
      formatFactors: { decode: errors.decode.formatFactors, prefill: errors.prefill.formatFactors },
    },
    hardware: { ...saved.hardware, query: hw },
    points,
    errors,
  }
}
