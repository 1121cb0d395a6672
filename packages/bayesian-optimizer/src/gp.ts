/**
 * Gaussian-process regression with a Matérn 5/2 kernel and one lengthscale per input column.
 * Hyperparameters (log lengthscales, log signal variance, log noise floor) are fitted by
 * maximising the log marginal likelihood plus weak log-normal priors, with a fixed number of Adam
 * steps (fixed, not timed, so a resumed search repeats the same fit). Each observation may carry
 * its own noise variance (from repeated measurements), added to the diagonal on top of the floor.
 */
import { backSolve, choleskyJitter, forwardSolve, inverseFromCholesky } from './linalg.ts'

export interface GpHyper {
  /** log lengthscale per input column (inputs are scaled to [0, 1]), or per group of a GpLayout. */
  readonly logLengthscales: number[]
  readonly logSignal: number
  readonly logNoise: number
}

/**
 * How encoded columns share lengthscales. The one-hot columns of one categorical parameter share
 * a single lengthscale and are scaled by 1/√2, so that two different values are at distance 1,
 * like the two ends of an ordinal range (an overlap/Hamming kernel): with a lengthscale per
 * one-hot column, a 4-valued parameter costs 4 hyperparameters, too many to fit from the dozen
 * points an early search has. Absent: one lengthscale per column.
 */
export interface GpLayout {
  /** Lengthscale index of each column (0 … groups−1). */
  readonly group: Int32Array
  /** Fixed factor on each column. */
  readonly scale: Float64Array
  readonly groups: number
}

/** Per-column inverse lengthscales from per-group log lengthscales. */
export function columnInvLs(logLs: ArrayLike<number>, d: number, layout?: GpLayout): Float64Array {
  const out = new Float64Array(d)
  for (let c = 0; c < d; c++) out[c] = layout ? layout.scale[c]! * Math.exp(-logLs[layout.group[c]!]!) : Math.exp(-logLs[c]!)
  return out
}

const SQRT5 = Math.sqrt(5)
const BOUNDS = { ls: [Math.log(0.03), Math.log(30)], signal: [Math.log(0.05), Math.log(20)], noise: [Math.log(1e-6), Math.log(0.5)] } as const
// Weak priors (mean, sd) on the log scale, so a few points cannot drive a lengthscale to a bound.
const PRIOR = { ls: [Math.log(0.5), 1.5], signal: [0, 1.5], noise: [Math.log(1e-3), 2.5] } as const

/** `dim`: the number of lengthscales (columns, or a layout's groups). */
export function defaultHyper(dim: number): GpHyper {
  return { logLengthscales: new Array<number>(dim).fill(Math.log(0.5)), logSignal: 0, logNoise: Math.log(1e-3) }
}

/** Matérn 5/2 covariance between rows of x (n×d) under the given inverse lengthscales. */
function kernelMatrix(x: Float64Array, n: number, d: number, invLs: Float64Array, signal: number): Float64Array {
  const k = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    k[i * n + i] = signal
    for (let j = 0; j < i; j++) {
      let r2 = 0
      for (let c = 0; c < d; c++) {
        const t = (x[i * d + c]! - x[j * d + c]!) * invLs[c]!
        r2 += t * t
      }
      const r = Math.sqrt(r2)
      const v = signal * (1 + SQRT5 * r + (5 / 3) * r2) * Math.exp(-SQRT5 * r)
      k[i * n + j] = v
      k[j * n + i] = v
    }
  }
  return k
}

export interface Evaluation {
  value: number
  grad: Float64Array
}

/** Log marginal likelihood + log prior and its gradient in (logLs per column or layout group..., logSignal, logNoise). Exported for the gradient test. */
export function hyperObjective(x: Float64Array, y: Float64Array, noise: Float64Array, n: number, d: number, theta: Float64Array, layout?: GpLayout): Evaluation {
  const g = layout?.groups ?? d
  const invLs = columnInvLs(theta, d, layout)
  const signal = Math.exp(theta[g]!)
  const floor = Math.exp(theta[g + 1]!)
  const kf = kernelMatrix(x, n, d, invLs, signal)
  const k = kf.slice()
  for (let i = 0; i < n; i++) k[i * n + i]! += floor + noise[i]!
  const { l } = choleskyJitter(k, n)
  const alpha = backSolve(l, n, forwardSolve(l, n, y))
  let value = 0
  for (let i = 0; i < n; i++) value -= 0.5 * y[i]! * alpha[i]! + Math.log(l[i * n + i]!)
  const inv = inverseFromCholesky(l, n)
  // W = ααᵀ − K⁻¹; dL/dθ = ½ tr(W dK/dθ).
  const grad = new Float64Array(g + 2)
  for (let i = 0; i < n; i++) {
    const wii = alpha[i]! * alpha[i]! - inv[i * n + i]!
    grad[g + 1]! += 0.5 * wii * floor
    grad[g]! += 0.5 * wii * signal
    for (let j = 0; j < i; j++) {
      const w = alpha[i]! * alpha[j]! - inv[i * n + j]!
      const kij = kf[i * n + j]!
      grad[g]! += w * kij // symmetric pair: 2 × ½
      let r2 = 0
      for (let c = 0; c < d; c++) {
        const t = (x[i * d + c]! - x[j * d + c]!) * invLs[c]!
        r2 += t * t
      }
      const r = Math.sqrt(r2)
      // dk/dlogℓ_c = σ² (5/3)(1 + √5 r) e^{−√5 r} (Δ_c/ℓ_c)²
      const common = w * signal * (5 / 3) * (1 + SQRT5 * r) * Math.exp(-SQRT5 * r)
      for (let c = 0; c < d; c++) {
        const t = (x[i * d + c]! - x[j * d + c]!) * invLs[c]!
        grad[layout ? layout.group[c]! : c]! += common * t * t
      }
    }
  }
  const prior = (v: number, [m, s]: readonly [number, number], at: number) => {
    value -= (0.5 * (v - m) * (v - m)) / (s * s)
    grad[at]! -= (v - m) / (s * s)
  }
  for (let c = 0; c < g; c++) prior(theta[c]!, PRIOR.ls, c)
  prior(theta[g]!, PRIOR.signal, g)
  prior(theta[g + 1]!, PRIOR.noise, g + 1)
  return { value, grad }
}

/** Runs `steps` Adam ascent steps from `start`, keeping the best point seen. */
export function fitHyper(x: Float64Array, y: Float64Array, noise: Float64Array, n: number, d: number, start: GpHyper, steps: number, rate = 0.08, layout?: GpLayout): GpHyper {
  const g = layout?.groups ?? d
  const p = g + 2
  const theta = Float64Array.from([...start.logLengthscales, start.logSignal, start.logNoise])
  const lo = (i: number) => (i < g ? BOUNDS.ls[0] : i === g ? BOUNDS.signal[0] : BOUNDS.noise[0])
  const hi = (i: number) => (i < g ? BOUNDS.ls[1] : i === g ? BOUNDS.signal[1] : BOUNDS.noise[1])
  const m = new Float64Array(p)
  const v = new Float64Array(p)
  let best = theta.slice()
  let bestValue = -Infinity
  for (let t = 1; t <= steps; t++) {
    const { value, grad } = hyperObjective(x, y, noise, n, d, theta, layout)
    if (value > bestValue) (bestValue = value), (best = theta.slice())
    for (let i = 0; i < p; i++) {
      m[i] = 0.9 * m[i]! + 0.1 * grad[i]!
      v[i] = 0.999 * v[i]! + 0.001 * grad[i]! * grad[i]!
      const step = (rate * (m[i]! / (1 - 0.9 ** t))) / (Math.sqrt(v[i]! / (1 - 0.999 ** t)) + 1e-8)
      theta[i] = Math.min(hi(i), Math.max(lo(i), theta[i]! + step))
    }
  }
  if (steps > 0) {
    const { value } = hyperObjective(x, y, noise, n, d, theta, layout)
    if (value > bestValue) best = theta.slice()
  }
  return { logLengthscales: Array.from(best.subarray(0, g)), logSignal: best[g]!, logNoise: best[g + 1]! }
}

/** A fitted GP: posterior mean and variance at new points, with room for fantasy conditioning. */
export interface GpModel {
  readonly n: number
  readonly signal: number
  readonly noiseFloor: number
  /** Inverse lengthscale of each column (a layout's scale included). */
  readonly invLengthscales: Float64Array
  /** Covariance k(a, b) between two encoded points. */
  kernel(a: Float64Array, ao: number, b: Float64Array, bo: number): number
  /** For each of m points (row-major in `pts`): mean, variance and v = L⁻¹k (m×n, for fantasy updates). */
  predict(pts: Float64Array, m: number): { mean: Float64Array; variance: Float64Array; v: Float64Array }
}

export function buildGp(x: Float64Array, y: Float64Array, noise: Float64Array, n: number, d: number, hyper: GpHyper, layout?: GpLayout): GpModel {
  const invLs = columnInvLs(hyper.logLengthscales, d, layout)
  const signal = Math.exp(hyper.logSignal)
  const floor = Math.exp(hyper.logNoise)
  const k = kernelMatrix(x, n, d, invLs, signal)
  for (let i = 0; i < n; i++) k[i * n + i]! += floor + noise[i]!
  const { l } = choleskyJitter(k, n)
  const alpha = backSolve(l, n, forwardSolve(l, n, y))
  const kernel = (a: Float64Array, ao: number, b: Float64Array, bo: number) => {
    let r2 = 0
    for (let c = 0; c < d; c++) {
      const t = (a[ao + c]! - b[bo + c]!) * invLs[c]!
      r2 += t * t
    }
    const r = Math.sqrt(r2)
    return signal * (1 + SQRT5 * r + (5 / 3) * r2) * Math.exp(-SQRT5 * r)
  }
  return {
    n,
    signal,
    noiseFloor: floor,
    invLengthscales: invLs,
    kernel,
    predict(pts, m) {
      // Solve L V = Ks for all m points at once, row by row: the inner loop is then a contiguous
      // axpy over the points, several times faster in JS than m separate dot-product solves.
      const vt = new Float64Array(n * m)
      const mean = new Float64Array(m)
      for (let i = 0; i < n; i++) {
        const row = i * m
        const xi = i * d
        const ai = alpha[i]!
        for (let q = 0; q < m; q++) {
          const pq = q * d
          let r2 = 0
          for (let c = 0; c < d; c++) {
            const t = (pts[pq + c]! - x[xi + c]!) * invLs[c]!
            r2 += t * t
          }
          const r = Math.sqrt(r2)
          const kq = signal * (1 + SQRT5 * r + (5 / 3) * r2) * Math.exp(-SQRT5 * r)
          vt[row + q] = kq
          mean[q]! += kq * ai
        }
        const li = i * n
        for (let j = 0; j < i; j++) {
          const lij = l[li + j]!
          if (lij === 0) continue
          const rj = j * m
          for (let q = 0; q < m; q++) vt[row + q]! -= lij * vt[rj + q]!
        }
        const inv = 1 / l[li + i]!
        for (let q = 0; q < m; q++) vt[row + q]! *= inv
      }
      const variance = new Float64Array(m)
      const v = new Float64Array(m * n)
      for (let q = 0; q < m; q++) {
        let s2 = 0
        for (let i = 0; i < n; i++) {
          const vi = vt[i * m + q]!
          v[q * n + i] = vi
          s2 += vi * vi
        }
        variance[q] = Math.max(signal - s2, 1e-12)
      }
      return { mean, variance, v }
    },
  }
}
