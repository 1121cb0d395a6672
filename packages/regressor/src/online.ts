/**
 * trueno's OnlineLearner (§A.11) in consistent units. Upstream learns on raw b + w·x while the
 * regressor it feeds multiplies by 1000, and its calibration MAPE mixes the two scales. Here the
 * learner's linear output is in thousands of tokens/s, exactly the heuristic regressor's scale:
 * `predict` returns tokens/s (×1000), `observe` takes tokens/s, and learned weights drop straight
 * into `heuristicModel({ weights })`. The EMA loss is a relative error (|pred − y| / y), so the
 * convergence threshold 0.15 means "within 15%" whatever the throughput.
 */
import { DIM } from '@kerneltune/features'

/** trueno's pretrained THROUGHPUT_WEIGHTS (§A.9): bias at [0], feature i at [i+1]. */
export const TRUENO_PRETRAINED_WEIGHTS: readonly number[] = [
  0.36,
  -0.18, 0.05, -0.02, 0.01, 0.08, 0.02,
  0.32, -0.08, 0.12, -0.03, 0.01,
  0.02, 0.02, 0.05, 0.03, 0.01, -0.02, -0.08, -0.15,
  0, 0.01, 0.02, 0.08, 0.05, 0.03, 0.02, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0.08, 0.18, 0.12, 0.05, 0.01,
  -0.1, -0.08,
]

export interface OnlineLearnerOptions {
  weights?: readonly number[]
  learningRate?: number
  momentum?: number
  replayCapacity?: number
}

export class OnlineLearner {
  private w: number[]
  private v: number[]
  readonly learningRate: number
  readonly momentum: number
  readonly replayCapacity: number
  private replay: { x: number[]; y: number }[] = []
  private updates = 0
  private ema = 0

  constructor(opts: OnlineLearnerOptions = {}) {
    this.w = [...(opts.weights ?? TRUENO_PRETRAINED_WEIGHTS)]
    if (this.w.length !== DIM + 1) throw new RangeError(`online learner weights need ${DIM + 1} values, got ${this.w.length}`)
    this.v = new Array<number>(this.w.length).fill(0)
    this.learningRate = opts.learningRate ?? 0.001
    this.momentum = opts.momentum ?? 0.9
    this.replayCapacity = opts.replayCapacity ?? 100
  }

  /** `with_learning_rate`. */
  withLearningRate(lr: number): OnlineLearner {
    const l = new OnlineLearner({ weights: this.w, learningRate: lr, momentum: this.momentum, replayCapacity: this.replayCapacity })
    return l
  }

  /** max(b + w·x, 0) in thousands of tokens/s (upstream's raw output; zeros → 0.36). */
  predictScaled(x: readonly number[]): number {
    let s = this.w[0]!
    for (let i = 0; i < DIM; i++) s += this.w[i + 1]! * (x[i] ?? 0)
    return Math.max(s, 0)
  }

  /** Tokens/s. */
  predict(x: readonly number[]): number {
    return this.predictScaled(x) * 1000
  }

  /**
   * One SGD-with-momentum step on a measurement (tokens/s). Skipped when the vector does not have
   * 42 values. Every 10th update replays the oldest buffered sample at a tenth of the rate.
   * Returns false when skipped.
   */
  observe(x: readonly number[], measuredTps: number): boolean {
    if (x.length + 1 !== this.w.length || !(measuredTps > 0) || !Number.isFinite(measuredTps)) return false
    const y = measuredTps / 1000
    const err = this.predictScaled(x) - y
    this.ema = 0.1 * (Math.abs(err) / y) + 0.9 * this.ema
    const g = [2 * err, ...x.map((xi) => 2 * err * xi)]
    for (let i = 0; i < this.w.length; i++) {
      this.v[i] = this.momentum * this.v[i]! - this.learningRate * g[i]!
      this.w[i]! += this.v[i]!
    }
    this.replay.push({ x: [...x], y })
    if (this.replay.length > this.replayCapacity) this.replay.shift()
    this.updates++
    if (this.updates % 10 === 0) {
      const old = this.replay[0]!
      const e = this.predictScaled(old.x) - old.y
      const lr = this.learningRate * 0.1
      this.w[0]! -= lr * 2 * e
      for (let i = 0; i < old.x.length; i++) this.w[i + 1]! -= lr * 2 * e * old.x[i]!
    }
    return true
  }

  weights(): number[] { return [...this.w] }
  numUpdates(): number { return this.updates }
  /** EMA of the relative error |pred − y| / y. */
  emaLoss(): number { return this.ema }
  /** EMA relative error below 15% (true for a fresh learner, as upstream). */
  isConverging(): boolean { return this.ema < 0.15 }
}
