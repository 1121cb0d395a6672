/**
 * The step of damped Gauss-Newton (Levenberg–Marquardt) that the physics fit and its calibration
 * share: solve H·step = −g with the caller's damped H, keep θ + step only when it lowers the loss,
 * and adapt the damping (÷3 after a kept step, ×10 after a rejected one, so a fit that overshoots
 * falls back towards gradient descent).
 */
import { KerneltuneError } from '@kerneltune/core'

/**
 * Solves H·x = b for a symmetric positive-definite H by Cholesky on typed arrays: the same
 * operations in the same order as ml-matrix's CholeskyDecomposition (so the same floats), without
 * its per-element accessors, which made it a quarter of a physics fit's time at 300+ parameters.
 */
export function choleskySolve(H: readonly (readonly number[])[], b: ArrayLike<number>): Float64Array {
  const n = H.length
  const L = new Float64Array(n * n)
  for (let j = 0; j < n; j++) {
    let d = 0
    for (let k = 0; k < j; k++) {
      let s = 0
      for (let i = 0; i < k; i++) s += L[k * n + i]! * L[j * n + i]!
      s = (H[j]![k]! - s) / L[k * n + k]!
      L[j * n + k] = s
      d = d + s * s
    }
    d = H[j]![j]! - d
    if (!(d > 0)) throw new KerneltuneError('INVALID_INPUT', 'damped step: the matrix is not positive definite')
    L[j * n + j] = Math.sqrt(d)
  }
  const x = Float64Array.from(b)
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < k; i++) x[k] = x[k]! - x[i]! * L[k * n + i]!
    x[k] = x[k]! / L[k * n + k]!
  }
  for (let k = n - 1; k >= 0; k--) {
    for (let i = k + 1; i < n; i++) x[k] = x[k]! - x[i]! * L[i * n + k]!
    x[k] = x[k]! / L[k * n + k]!
  }
  return x
}

export interface DampedState {
  /** Loss at the current θ. */
  current: number
  /** Added to H's diagonal (relatively) by the caller before each step. */
  damping: number
}

/**
 * Tries one step from θ (updated in place when kept). Returns how much the loss fell (0 when the
 * step was rejected), or undefined once the damping has grown past 1e8: no step lowers the loss.
 */
export function dampedStep(theta: Float64Array, H: number[][], g: ArrayLike<number>, loss: (t: Float64Array) => number, s: DampedState): number | undefined {
  const step = choleskySolve(H, Array.from(g, (x) => -x))
  const next = Float64Array.from(theta, (x, j) => x + step[j]!)
  const value = loss(next)
  if (value < s.current) {
    const gain = s.current - value
    theta.set(next)
    s.current = value
    s.damping = Math.max(s.damping / 3, 1e-9)
    return gain
  }
  s.damping *= 10
  return s.damping > 1e8 ? undefined : 0
}
