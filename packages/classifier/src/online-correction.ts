/**
 * Online learning that starts from the tuner's own throughput model, as upstream's
 * `online_learner()` does (it seeds the learner with the tuner's weights). trueno's learner is
 * linear in the 42 features, which only the heuristic model is; the pretrained ridge (or any
 * learned model) is not, so for it the learner learns a multiplicative correction instead:
 * prediction = model × max(b + w·x, 0), with b = 1 and w = 0 at the start. The correction starts
 * at exactly 1, so an observation equal to the prediction changes nothing, and measurements move
 * the prediction towards them. It runs on trueno's OnlineLearner (SGD with momentum, replay),
 * fed the ratio measured / model in the learner's ×1000 scale.
 */
import type { Prediction } from '@kerneltune/core'
import { DIM, toVector, type TunerFeatures } from '@kerneltune/features'
import { LearnedModel, OnlineLearner, type OnlineLearnerOptions } from '@kerneltune/regressor'

/** The identity correction: bias 1, every feature weight 0. */
export const IDENTITY_CORRECTION: readonly number[] = [1, ...new Array<number>(DIM).fill(0)]

const vectorOf = (f: TunerFeatures | readonly number[]): readonly number[] => (Array.isArray(f) ? f : toVector(f as TunerFeatures))

/** A learned model with an online correction applied: the prediction scaled, then capped by the roofline. */
export class OnlineCorrectedModel {
  readonly kind = 'online'
  readonly base: LearnedModel
  readonly correction: readonly number[]
  /** Observations behind the correction, over every learner applied. */
  readonly updates: number

  constructor(base: LearnedModel, correction: readonly number[], updates: number) {
    this.base = base
    this.correction = [...correction]
    this.updates = updates
  }

  get mape(): number {
    return this.base.mape
  }

  /** The correction factor max(b + w·x, 0) for a feature vector. */
  factor(f: TunerFeatures | readonly number[]): number {
    const x = vectorOf(f)
    let s = this.correction[0]!
    for (let i = 0; i < DIM; i++) s += this.correction[i + 1]! * (x[i] ?? 0)
    return Math.max(s, 0)
  }

  predict(f: TunerFeatures | readonly number[]): Prediction {
    const { interval: _calibratedForTheBase, ...p } = this.base.predict(f as TunerFeatures)
    const raw = p.rawTps * this.factor(f)
    return { ...p, predictedTps: Math.min(raw, p.rooflineTps), rawTps: raw, capped: raw > p.rooflineTps, model: `${p.model}+online-${this.updates}` }
  }
}

/** An OnlineLearner over a learned model: the same interface, in tokens/s, starting from the model. */
export class OnlineCorrectionLearner {
  readonly base: LearnedModel
  private readonly inner: OnlineLearner
  private readonly startUpdates: number

  /** `correction` and `updates` continue from a correction already applied (default: none). */
  constructor(base: LearnedModel, opts: Omit<OnlineLearnerOptions, 'weights'> & { correction?: readonly number[], updates?: number } = {}) {
    const { correction, updates, ...rest } = opts
    this.base = base
    this.inner = new OnlineLearner({ ...rest, weights: correction ?? IDENTITY_CORRECTION })
    this.startUpdates = updates ?? 0
  }

  /** Tokens/s: the model's prediction times the current correction. */
  predict(x: readonly number[]): number {
    return this.model().predict(x).predictedTps
  }

  /** One step towards a measurement (tokens/s) at feature vector x; false when skipped, as OnlineLearner. */
  observe(x: readonly number[], measuredTps: number): boolean {
    const raw = this.base.predict(x).rawTps
    if (!(raw > 0)) return false
    return this.inner.observe(x, (measuredTps / raw) * 1000)
  }

  /** The correction weights: bias at [0], feature i at [i + 1]. */
  weights(): number[] { return this.inner.weights() }
  numUpdates(): number { return this.inner.numUpdates() }
  emaLoss(): number { return this.inner.emaLoss() }
  isConverging(): boolean { return this.inner.isConverging() }

  /** The corrected model (counting the updates of earlier learners on the same model). */
  model(): OnlineCorrectedModel {
    return new OnlineCorrectedModel(this.base, this.inner.weights(), this.startUpdates + this.inner.numUpdates())
  }
}
