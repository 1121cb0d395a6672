/**
 * trueno's default ThroughputRegressor (§A.4), kept exactly: a linear model over the 42-value
 * vector with weights[43] (bias at [0], feature i at [i+1]), output on a ×1000 scale floored at 1,
 * clamped by trueno's own roofline bound, confidence max(1 − mape, 0.5) × 0.9 when clamped.
 * Worked values: default builder raw 518.69 (bound 2500, conf 0.85); 7B Q4K at 1008 GB/s,
 * batch 1 → raw 426.83, clamped to 256.0, conf 0.765.
 */
import type { Prediction } from '@kerneltune/core'
import { DIM, toVector, type TunerFeatures } from '@kerneltune/features'
import { truenoRooflineDetail } from '@kerneltune/roofline'

/** `ThroughputRegressor::new()` weights: bias .4, w[1] −.15, w[7] .3, w[8] −.05, w[9] .1, w[36] .15, w[38] .1. */
export function heuristicWeights(): number[] {
  const w = new Array<number>(DIM + 1).fill(0)
  w[0] = 0.4
  w[1] = -0.15
  w[7] = 0.3
  w[8] = -0.05
  w[9] = 0.1
  w[36] = 0.15
  w[38] = 0.1
  return w
}

/** The default importance list, in upstream order (top features are its first 5). */
export const HEURISTIC_IMPORTANCE: readonly (readonly [string, number])[] = [
  ['batch_size', 0.25], ['gpu_mem_bw', 0.2], ['model_params', 0.15], ['cuda_graphs', 0.1],
  ['gpu_sm_count', 0.1], ['hidden_dim', 0.08], ['quant_type', 0.07], ['seq_len', 0.05],
]

export interface HeuristicModel {
  readonly kind: 'heuristic'
  readonly weights: readonly number[]
  readonly mape: number
  readonly sampleCount: number
  /** `predict_raw`: max((b + w·x)·1000, 1), tokens/s. */
  predictRaw(f: TunerFeatures | readonly number[]): number
  predict(f: TunerFeatures | readonly number[]): Prediction
}

/** `ThroughputRegressor::new()`; pass weights/mape to reproduce a modified upstream regressor. */
export function heuristicModel(opts: { weights?: readonly number[]; mape?: number; sampleCount?: number } = {}): HeuristicModel {
  const weights = [...(opts.weights ?? heuristicWeights())]
  if (weights.length !== DIM + 1) throw new RangeError(`heuristic weights need ${DIM + 1} values, got ${weights.length}`)
  const mape = opts.mape ?? 0.15
  const vec = (f: TunerFeatures | readonly number[]) => (Array.isArray(f) ? (f as readonly number[]) : toVector(f as TunerFeatures))
  const predictRaw = (f: TunerFeatures | readonly number[]) => {
    const x = vec(f)
    let s = weights[0]!
    for (let i = 0; i < DIM; i++) s += weights[i + 1]! * (x[i] ?? 0)
    return Math.max(s * 1000, 1)
  }
  return {
    kind: 'heuristic', weights, mape, sampleCount: opts.sampleCount ?? 0, predictRaw,
    predict(f) {
      const raw = predictRaw(f)
      const bound = truenoRooflineDetail(vec(f)).boundTps
      const capped = raw > bound
      return {
        kind: 'prediction', predictedTps: Math.min(raw, bound), rooflineTps: bound, capped, rawTps: raw,
        confidence: Math.max(1 - mape, 0.5) * (capped ? 0.9 : 1),
        topFeatures: HEURISTIC_IMPORTANCE.slice(0, 5).map(([n, v]) => [n, v] as const), model: 'heuristic (trueno default)',
      }
    },
  }
}
