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
  /** y, m×n row-major; with `rows`, only those activation rows (rows.length×n). */
  output: Float32Array
  /** For each output, sum_k |x·w|: the scale that rounding errors are measured against. */
  absSums: Float64Array
  /** The activation rows computed, in order, when not all m were (see `verificationRows`). */
  rows?: number[]
}

/**
 * The multiply-adds above which `verificationRows` checks a sample of the activation rows: the
 * reference runs in f64 on one CPU thread, and an 8B model's prefill product (512×14336×4096,
 * 30 G multiply-adds) would take minutes there, longer than the GPU spends tuning it.
 */
export const FULL_REFERENCE_MACS = 2 ** 28

/**
 * The activation rows a reference of `problem` computes: all of them up to FULL_REFERENCE_MACS,
 * else `sample` rows evenly spread from the first to the last (all n outputs of each, so every
 * output column and every tile along n is checked). Their spacing, (m-1)/(sample-1), is not a
 * power of two for the shapes used here, so they fall at different rows within the tiles along m.
 */
export function verificationRows(problem: MatmulProblem, sample = 16): number[] | undefined {
  const { m, n, k } = problem
  if (m * n * k <= FULL_REFERENCE_MACS || m <= sample) return undefined
  return Array.from({ length: sample }, (_, i) => Math.round((i * (m - 1)) / (sample - 1)))
}

/** y = x · Wᵀ with x m×k (row-major f32) and W n×k in the packed format; returns y m×n. */
export function referenceMatmul(problem: MatmulProblem, weightsPacked: Uint8Array, activations: Float32Array): Float32Array {
  return referenceWithBounds(problem, weightsPacked, activations).output
}

/**
 * The reference product and the per-output absolute sums used for the tolerance; with `rows`, only
 * those activation rows (each must be in 0..m-1).
 */
export function referenceWithBounds(problem: MatmulProblem, weightsPacked: Uint8Array, activations: Float32Array, rows?: readonly number[]): ReferenceResult {
  checkProblem(problem)
  const { format, m, n, k } = problem
  if (weightsPacked.length !== weightBytes(format, n, k)) {
    throw new KerneltuneError('INVALID_INPUT', `weights for a ${format} ${n}x${k} matrix must be ${weightBytes(format, n, k)} bytes, got ${weightsPacked.length}`)
  }
  if (activations.length !== m * k) throw new KerneltuneError('INVALID_INPUT', `activations must hold m*k = ${m * k} values, got ${activations.length}`)
  for (const r of rows ?? []) {
    if (!Number.isInteger(r) || r < 0 || r >= m) throw new KerneltuneError('INVALID_INPUT', `reference rows must be whole numbers in 0..${m - 1}, got ${r}`)
  }
  const which = rows ? [...rows] : Array.from({ length: m }, (_, i) => i)
  const output = new Float32Array(which.length * n)
  const absSums = new Float64Array(which.length * n)
  const w = new Float64Array(k)
  for (let j = 0; j < n; j++) {
    dequantizeRow(format, weightsPacked, k, j, w)
    for (let i = 0; i < which.length; i++) {
      let acc = 0
      let abs = 0
      const xo = which[i]! * k
      for (let t = 0; t < k; t++) {
        const p = activations[xo + t]! * w[t]!
        acc += p
        abs += Math.abs(p)
      }
      output[i * n + j] = acc
      absSums[i * n + j] = abs
    }
  }
  return { output, absSums, ...(rows ? { rows: which } : {}) }
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
  // With sampled rows, `got` holds all m rows: output i of the reference is row rows[i / n] there.
  const n = ref.rows ? ref.output.length / ref.rows.length : 0
  const at = ref.rows ? (i: number) => ref.rows![Math.floor(i / n)]! * n + (i % n) : (i: number) => i
  let correct = ref.rows ? got.length >= (Math.max(...ref.rows) + 1) * n : got.length === ref.output.length
  for (let i = 0; i < ref.output.length; i++) {
    const err = Math.abs((got[at(i)] ?? NaN) - ref.output[i]!)
    const tol = rel * ref.absSums[i]! + 1e-30
    if (!(err <= tol)) correct = false
    if (err > maxAbsError || Number.isNaN(err)) maxAbsError = Number.isNaN(err) ? Infinity : err
    const ratio = err / tol
    if (!(ratio <= worst)) { worst = ratio; worstTol = tol }
  }
  return { correct, maxAbsError, tolerance: worstTol }
}
