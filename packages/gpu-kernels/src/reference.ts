/**
 * The CPU reference every GPU configuration is checked against, and seeded problem data.
 * The reference dequantises exactly (f16 scale × integer quant is exact in f64) and accumulates in
 * f64, so its only rounding is the final conversion to f32.
 */
import { KerneltuneError, mulberry32 } from '@kerneltune/core'
import { BLOCK, dequantizeRow, quantizeRow, weightBytes } from './formats.ts'
import type { MatmulProblem } from './types.ts'

/** Throws INVALID_INPUT unless m, n, k are positive integers and k is a multiple of 32. */
export function checkProblem(problem: MatmulProblem): void {
  const { m, n, k } = problem
  for (const [name, v] of [['m', m], ['n', n], ['k', k]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new KerneltuneError('INVALID_INPUT', `problem.${name} must be a positive integer, got ${v}`)
  }
  if (k % BLOCK !== 0) throw new KerneltuneError('INVALID_INPUT', `problem.k must be a multiple of ${BLOCK} (the block size), got ${k}`)
}

/** A seeded generator (mulberry32), so problem data is the same on every runtime. */
export const seededRandom = mulberry32

/** Random weights (quantised into the problem's format) and activations in [-1, 1). */
export function makeProblemData(problem: MatmulProblem, seed: number): { weights: Uint8Array; activations: Float32Array } {
  checkProblem(problem)
  const { format, m, n, k } = problem
  const rand = seededRandom(seed)
  const weights = new Uint8Array(weightBytes(format, n, k))
  const row = new Float64Array(k)
  const rowBytes = weightBytes(format, 1, k)
  for (let r = 0; r < n; r++) {
    // Per-row magnitudes differ so that per-block scales are exercised, like real weights.
    const scale = 0.02 + 0.08 * rand()
    for (let i = 0; i < k; i++) row[i] = (rand() * 2 - 1) * scale
    quantizeRow(format, row, weights, r * rowBytes)
  }
  const activations = new Float32Array(m * k)
  for (let i = 0; i < activations.length; i++) activations[i] = rand() * 2 - 1
  return { weights, activations }
}

export interface ReferenceResult {
  /** y, m×n row-major. */
  output: Float32Array
  /** For each output, sum_k |x·w|: the scale that rounding errors are measured against. */
  absSums: Float64Array
}

/** y = x · Wᵀ with x m×k (row-major f32) and W n×k in the packed format; returns y m×n. */
export function referenceMatmul(problem: MatmulProblem, weightsPacked: Uint8Array, activations: Float32Array): Float32Array {
  return referenceWithBounds(problem, weightsPacked, activations).output
}

/** The reference product and the per-output absolute sums used for the tolerance. */
export function referenceWithBounds(problem: MatmulProblem, weightsPacked: Uint8Array, activations: Float32Array): ReferenceResult {
  checkProblem(problem)
  const { format, m, n, k } = problem
  if (weightsPacked.length !== weightBytes(format, n, k)) {
    throw new KerneltuneError('INVALID_INPUT', `weights for a ${format} ${n}x${k} matrix must be ${weightBytes(format, n, k)} bytes, got ${weightsPacked.length}`)
  }
  if (activations.length !== m * k) throw new KerneltuneError('INVALID_INPUT', `activations must hold m*k = ${m * k} values, got ${activations.length}`)
  const output = new Float32Array(m * n)
  const absSums = new Float64Array(m * n)
  const w = new Float64Array(k)
  for (let j = 0; j < n; j++) {
    dequantizeRow(format, weightsPacked, k, j, w)
    for (let i = 0; i < m; i++) {
      let acc = 0
      let abs = 0
      const xo = i * k
      for (let t = 0; t < k; t++) {
        const p = activations[xo + t]! * w[t]!
        acc += p
        abs += Math.abs(p)
      }
      output[i * n + j] = acc
      absSums[i * n + j] = abs
    }
  }
  return { output, absSums }
}

/**
 * Compares a GPU result with the reference. An output is accepted when its error is at most
 * 2·k·2⁻²⁴·Σ|x·w| (twice the worst-case bound for summing k f32 products), so correct kernels
 * pass whatever their summation order, while a wrong element, block or scale is off by a sizeable
 * fraction of Σ|x·w| and fails. `tolerance` reports the bound at the output where the error,
 * relative to its bound, was largest.
 */
export function compareWithReference(ref: ReferenceResult, got: Float32Array, k: number): { correct: boolean; maxAbsError: number; tolerance: number } {
  const rel = 2 * k * 2 ** -24
  let maxAbsError = 0
  let worst = -1
  let worstTol = rel * (ref.absSums[0] ?? 0)
  let correct = got.length === ref.output.length
  for (let i = 0; i < ref.output.length; i++) {
    const err = Math.abs((got[i] ?? NaN) - ref.output[i]!)
    const tol = rel * ref.absSums[i]! + 1e-30
    if (!(err <= tol)) correct = false
    if (err > maxAbsError || Number.isNaN(err)) maxAbsError = Number.isNaN(err) ? Infinity : err
    const ratio = err / tol
    if (!(ratio <= worst)) { worst = ratio; worstTol = tol }
  }
  return { correct, maxAbsError, tolerance: worstTol }
}
