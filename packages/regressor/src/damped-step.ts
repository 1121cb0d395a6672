/**
 * The step of damped Gauss-Newton (Levenberg–Marquardt) that the physics fit and its calibration
 * share: solve H·step = −g with the caller's damped H, keep θ + step only when it lowers the loss,
 * and adapt the damping (÷3 after a kept step, ×10 after a rejected one, so a fit that overshoots
 * falls back towards gradient descent).
 */
import { CholeskyDecomposition, Matrix } from 'ml-matrix'

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
  const step = new CholeskyDecomposition(new Matrix(H)).solve(Matrix.columnVector(Array.from(g, (x) => -x))).getColumn(0)
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
