/**
 * Helpers of predict-vs-measure.ts: how this CPU is described to the pretrained regressor, the
 * per-phase calibration with the regressor's `calibrate`, and the error measure.
 */
import { calibrate, type CalibratedModel, type CalibrationResult, type LearnedModel, type ThroughputQueryInput } from '@kerneltune/regressor'
import { slim, type Phase, type ReportPoint } from './predict-vs-measure-point.ts'

/**
 * The regressor's vendor one-hot from the CPU's model string. The pretrained model saw no Intel or
 * AMD rows (their weights are zero), so this is a faithful label that changes nothing.
 */
export function cpuVendor(model: string): 'intel' | 'amd' | 'apple' | 'other' {
  return /intel/i.test(model) ? 'intel' : /amd|epyc|ryzen/i.test(model) ? 'amd' : /apple/i.test(model) ? 'apple' : 'other'
}

/**
 * This machine as the regressor sees it: the probed copy bandwidth (one thread), the FLOP rate
 * estimated from cores × clock × SIMD width scaled to the threads llama.cpp is given (a 1-thread
 * run has one core's FLOPs), and unified memory (the CPU reads the weights straight from system
 * RAM, as `specFromDetected` says, like the Apple and GB10 rows of the training data).
 */
export function hardwareQuery(spec: { memBwGbs: number; fp16Tflops: number; unifiedMemory?: boolean }, cpuModel: string, threads?: { used: number; cores: number }) {
  const share = threads ? Math.min(threads.used / threads.cores, 1) : 1
  return { memBwGbs: spec.memBwGbs, tflops: spec.fp16Tflops * share, unifiedMemory: spec.unifiedMemory ?? true, vendor: cpuVendor(cpuModel), device: 'cpu' } as const
}

/**
 * The shapes of a synthetic llama the regressor's query can carry: layers (per-layer overhead), KV
 * bytes per context token (F16 cache: 2 × KV heads × head size × layers × 2 bytes) and attention
 * FLOPs per context token (4 × heads × head size × layers), in place of proxies scaled from LLaMA-3-8B.
 */
export function shapeQuery(shape: { layers: number; heads: number; kvHeads: number; headDim: number }) {
  return {
    layers: shape.layers,
    kvBytesPerToken: 2 * shape.kvHeads * shape.headDim * shape.layers * 2,
    attnFlopsPerToken: 4 * shape.heads * shape.headDim * shape.layers,
  }
}

export interface PhasePoint {
  readonly calibration: boolean
  readonly query: Record<Phase, ThroughputQueryInput>
  readonly measured: Record<Phase, number>
}

/**
 * `calibrate` keys its correction on the hardware only (bandwidth and TFLOPS), not the phase, so
 * one fit over decode and prefill together would average two different shortfalls. Each phase is
 * therefore calibrated on its own, on the calibration points only.
 */
export function calibrateByPhase(model: LearnedModel, points: readonly PhasePoint[]): Record<Phase, { result: CalibrationResult; model: CalibratedModel }> {
  const fit = (phase: Phase) => calibrate(model, points.filter((p) => p.calibration).map((p) => ({ query: p.query[phase], measuredTps: p.measured[phase] })))
  return { decode: fit('decode'), prefill: fit('prefill') }
}

/** Mean absolute percentage error of predictions against measurements (NaN when empty). */
export function mape(pairs: readonly { predicted: number; measured: number }[]): number {
  if (pairs.length === 0) return Number.NaN
  return pairs.reduce((s, p) => s + Math.abs(p.predicted - p.measured) / p.measured, 0) / pairs.length
}

/**
 * Calibrates each phase on the calibration points, stores the calibrated predictions on every
 * point, and scores before and after: the held-out points are the sizes no fit saw.
 */
export function calibrateAndScore(model: LearnedModel, points: ReportPoint[]) {
  const fits = calibrateByPhase(model, points)
  for (const p of points) p.calibrated = { decode: slim(fits.decode.model.predict(p.query.decode)), prefill: slim(fits.prefill.model.predict(p.query.prefill)) }
  const held = points.filter((p) => !p.calibration)
  const inside = (phase: Phase) => points.filter((p) => p.predicted[phase].interval && p.measured[phase] >= p.predicted[phase].interval!.low && p.measured[phase] <= p.predicted[phase].interval!.high).length
  const errorOf = (phase: Phase) => ({
    heldOutBefore: mape(held.map((p) => ({ predicted: p.predicted[phase].predictedTps, measured: p.measured[phase] }))),
    heldOutAfter: mape(held.map((p) => ({ predicted: p.calibrated![phase].predictedTps, measured: p.measured[phase] }))),
    allBefore: mape(points.map((p) => ({ predicted: p.predicted[phase].predictedTps, measured: p.measured[phase] }))),
    calibrationBefore: fits[phase].result.mapeBefore,
    calibrationLeaveOneOutAfter: fits[phase].result.mapeAfter,
    factor: fits[phase].result.factor,
    overheadFactor: fits[phase].result.overheadFactor,
    formatFactors: fits[phase].result.formatFactors,
    insideInterval: inside(phase),
    cappedBefore: points.filter((p) => p.predicted[phase].capped).length,
    cappedAfter: points.filter((p) => p.calibrated![phase].capped).length,
  })
  return { fits, errors: { decode: errorOf('decode'), prefill: errorOf('prefill') } }
}
