import type { MaybePromise, PluginBase } from './plugin.ts'

/** A throughput prediction. It is a prediction, and says so (`kind`). */
export interface Prediction {
  readonly kind: 'prediction'
  readonly predictedTps: number
  /** The roofline bound the prediction was clamped by. */
  readonly rooflineTps: number
  /** True when the raw model output exceeded the bound and was clamped. */
  readonly capped: boolean
  readonly rawTps: number
  readonly confidence: number
  readonly topFeatures: readonly (readonly [name: string, importance: number])[]
  readonly model: string
}

/** Features in (the 42-value vector), throughput out, clamped by the roofline. */
export interface PredictorPlugin extends PluginBase<'predictor'> {
  predict(vector: readonly number[]): MaybePromise<Prediction>
}
