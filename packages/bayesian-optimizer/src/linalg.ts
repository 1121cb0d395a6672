/**
 * The dense linear algebra the GP needs, on row-major Float64Arrays: an in-place Cholesky with
 * jitter escalation, triangular solves, and the inverse from the factor. Written out here rather
 * than through ml-matrix because the hot loops must avoid per-element object access.
 */

/** Lower Cholesky factor of the n×n matrix `a` (row-major), or undefined if not positive definite. */
export function cholesky(a: Float64Array, n: number): Float64Array | undefined {
  const l = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    const ri = i * n
    for (let j = 0; j <= i; j++) {
      const rj = j * n
      let s = a[ri + j]!
      for (let k = 0; k < j; k++) s -= l[ri + k]! * l[rj + k]!
      if (i === j) {
        if (!(s > 0)) return undefined
        l[ri + i] = Math.sqrt(s)
      } else {
        l[ri + j] = s / l[rj + j]!
      }
    }
  }
  return l
}

/** Cholesky of `a + jitter·I`, raising the jitter until the factor exists. */
export function choleskyJitter(a: Float64Array, n: number): { l: Float64Array; jitter: number } {
  let jitter = 0
  for (let attempt = 0; attempt < 8; attempt++) {
    let m = a
    if (jitter > 0) {
      m = a.slice()
      for (let i = 0; i < n; i++) m[i * n + i]! += jitter
    }
    const l = cholesky(m, n)
    if (l) return { l, jitter }
    jitter = jitter === 0 ? 1e-8 : jitter * 10
  }
  throw new Error('covariance matrix is not positive definite even with jitter')
}

/** Solves L x = b (L lower, row-major n×n) into `out`. */
export function forwardSolve(l: Float64Array, n: number, b: ArrayLike<number>, out: Float64Array = new Float64Array(n)): Float64Array {
  for (let i = 0; i < n; i++) {
    const ri = i * n
    let s = b[i]!
    for (let k = 0; k < i; k++) s -= l[ri + k]! * out[k]!
    out[i] = s / l[ri + i]!
  }
  return out
}

/** Solves Lᵀ x = b. */
export function backSolve(l: Float64Array, n: number, b: ArrayLike<number>, out: Float64Array = new Float64Array(n)): Float64Array {
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * out[k]!
    out[i] = s / l[i * n + i]!
  }
  return out
}

/** (L Lᵀ)⁻¹ as a full symmetric matrix. */
export function inverseFromCholesky(l: Float64Array, n: number): Float64Array {
  // Invert L (lower) in place into li, then K⁻¹ = Liᵀ Li.
  const li = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    li[i * n + i] = 1 / l[i * n + i]!
    for (let j = 0; j < i; j++) {
      let s = 0
      for (let k = j; k < i; k++) s -= l[i * n + k]! * li[k * n + j]!
      li[i * n + j] = s / l[i * n + i]!
    }
  }
  const inv = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0
      for (let k = i; k < n; k++) s += li[k * n + i]! * li[k * n + j]!
      inv[i * n + j] = s
      inv[j * n + i] = s
    }
  }
  return inv
}
