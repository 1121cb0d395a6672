/**
 * The normal and Student t distributions: CDF, density and quantile. The t CDF is exact (through
 * the regularized incomplete beta function), not a normal or series approximation, so p-values
 * stay right for the small sample counts that kernel timing produces.
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { lnGamma, regularizedBeta, regularizedGammaQ } from './special.ts'

/** Φ(x), the standard normal CDF, accurate in both tails. */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) throw kerneltuneError('INVALID_INPUT', 'normalCdf of NaN')
  // Φ(x) = ½·erfc(−x/√2) and erfc(z) = Q(½, z²) for z ≥ 0.
  const z2 = (x * x) / 2
  if (x < 0) return 0.5 * regularizedGammaQ(0.5, z2)
  return 1 - 0.5 * regularizedGammaQ(0.5, z2)
}

export function normalPdf(x: number): number {
  return Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI)
}

// Acklam's rational approximation (relative error 1.15e-9), refined below with Halley steps.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]

/** Φ⁻¹(p), the standard normal quantile, for p in (0, 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return -Infinity
    if (p === 1) return Infinity
    throw kerneltuneError('INVALID_INPUT', `normalQuantile needs p in [0, 1], got ${p}`)
  }
  const lowTail = 0.02425
  let x: number
  if (p < lowTail || p > 1 - lowTail) {
    const q = Math.sqrt(-2 * Math.log(p < lowTail ? p : 1 - p))
    const v = (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1)
    x = p < lowTail ? v : -v
  } else {
    const q = p - 0.5
    const r = q * q
    x = ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1)
  }
  for (let i = 0; i < 2; i++) {
    const e = normalCdf(x) - p
    const u = e / normalPdf(x)
    x -= u / (1 + (x * u) / 2)
  }
  return x
}

function checkDf(df: number): void {
  if (!(df > 0)) throw kerneltuneError('INVALID_INPUT', `degrees of freedom must be > 0, got ${df}`)
}

// Beyond this the t and normal distributions agree to double precision for practical t, and the
// incomplete beta continued fraction would need many thousands of iterations.
const NORMAL_DF = 1e10

/** The density of Student's t with `df` degrees of freedom. */
export function studentTPdf(t: number, df: number): number {
  checkDf(df)
  if (df >= NORMAL_DF) return normalPdf(t)
  const lnC = lnGamma((df + 1) / 2) - lnGamma(df / 2) - 0.5 * Math.log(df * Math.PI)
  return Math.exp(lnC - ((df + 1) / 2) * Math.log1p((t * t) / df))
}

/** P(T ≤ t) for Student's t with `df` (> 0, not necessarily whole) degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  checkDf(df)
  if (Number.isNaN(t)) throw kerneltuneError('INVALID_INPUT', 'studentTCdf of NaN')
  if (t === Infinity) return 1
  if (t === -Infinity) return 0
  if (df >= NORMAL_DF) return normalCdf(t)
  const t2 = t * t
  if (t2 < df) {
    // Near the centre: P(|T| ≤ |t|) = I_{t²/(df+t²)}(1/2, df/2), which keeps the digits that
    // 1 − df/(df+t²) would lose for tiny t.
    const inner = 0.5 * regularizedBeta(t2 / (df + t2), 0.5, df / 2)
    return t > 0 ? 0.5 + inner : 0.5 - inner
  }
  // In the tails: P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2), accurate for small tail areas.
  const tail = 0.5 * regularizedBeta(df / (df + t2), df / 2, 0.5)
  return t > 0 ? 1 - tail : tail
}

/** The two-sided p-value P(|T| ≥ |t|); computed directly so small p-values keep their digits. */
export function studentTTwoSided(t: number, df: number): number {
  checkDf(df)
  if (Number.isNaN(t)) throw kerneltuneError('INVALID_INPUT', 'studentTTwoSided of NaN')
  if (!Number.isFinite(t)) return 0
  if (df >= NORMAL_DF) return 2 * normalCdf(-Math.abs(t))
  const t2 = t * t
  if (t2 < df) return 1 - regularizedBeta(t2 / (df + t2), 0.5, df / 2)
  return regularizedBeta(df / (df + t2), df / 2, 0.5)
}

/** The t quantile: the t with P(T ≤ t) = p, by safeguarded Newton iteration on the exact CDF. */
export function studentTQuantile(p: number, df: number): number {
  checkDf(df)
  if (!(p >= 0 && p <= 1)) throw kerneltuneError('INVALID_INPUT', `studentTQuantile needs p in [0, 1], got ${p}`)
  if (p === 0) return -Infinity
  if (p === 1) return Infinity
  if (p === 0.5) return 0
  if (df >= NORMAL_DF) return normalQuantile(p)
  // Solve in the lower tail and mirror, so that p close to 1 does not lose digits.
  if (p > 0.5) return -studentTQuantile(1 - p, df)
  let lo = -1
  while (studentTCdf(lo, df) > p) lo *= 2
  let hi = 0
  let x = Math.max(normalQuantile(p), lo)
  for (let i = 0; i < 200; i++) {
    const f = studentTCdf(x, df) - p
    if (f > 0) hi = x
    else lo = x
    if (Math.abs(f) <= 1e-15 * p) return x
    const step = f / studentTPdf(x, df)
    let next = x - step
    if (!(next > lo && next < hi) || !Number.isFinite(next)) next = (lo + hi) / 2
    if (Math.abs(next - x) <= 1e-14 * Math.max(1, Math.abs(x))) return next
    x = next
  }
  return x
}
