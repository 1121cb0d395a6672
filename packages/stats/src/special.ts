/**
 * Special functions behind the exact t and normal distributions: log-gamma (Lanczos), the
 * regularized incomplete beta function (continued fraction, modified Lentz) and the regularized
 * lower incomplete gamma function (series / continued fraction). Formulas follow Press et al.,
 * Numerical Recipes 3rd ed. §6.1, §6.2, §6.4; accuracy is close to double precision.
 */
import { kerneltuneError } from '@kerneltune/core/errors'

// Lanczos coefficients for g = 7, n = 9 (the set used by many numeric libraries).
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]

/** ln Γ(x) for x > 0. */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw kerneltuneError('INVALID_INPUT', `lnGamma needs x > 0, got ${x}`)
  if (x < 0.5) {
    // Reflection keeps the Lanczos sum in its accurate range.
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x)
  }
  const z = x - 1
  let a = LANCZOS[0]!
  const t = z + 7.5
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

const EPS = 1e-16
const TINY = 1e-300
const MAX_ITER = 100_000

// Continued fraction for I_x(a, b), evaluated with the modified Lentz method.
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b
  const qap = a + 1
  const qam = a - 1
  let c = 1
  let d = 1 - (qab * x) / qap
  if (Math.abs(d) < TINY) d = TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < EPS) return h
  }
  throw kerneltuneError('INTERNAL', `incomplete beta did not converge for x=${x}, a=${a}, b=${b}`)
}

/** The regularized incomplete beta function I_x(a, b), for a, b > 0 and x in [0, 1]. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw kerneltuneError('INVALID_INPUT', `regularizedBeta needs a, b > 0, got a=${a}, b=${b}`)
  if (!(x >= 0 && x <= 1)) throw kerneltuneError('INVALID_INPUT', `regularizedBeta needs x in [0, 1], got ${x}`)
  if (x === 0 || x === 1) return x
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x)
  const front = Math.exp(lnFront)
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b
}

/** The regularized lower incomplete gamma function P(a, x), for a > 0 and x ≥ 0. */
export function regularizedGammaP(a: number, x: number): number {
  return gammaPQ(a, x)[0]
}

/** The regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x), accurate in the tail. */
export function regularizedGammaQ(a: number, x: number): number {
  return gammaPQ(a, x)[1]
}

// Returns [P, Q], each computed directly where it is small so that neither loses precision.
function gammaPQ(a: number, x: number): [number, number] {
  if (!(a > 0)) throw kerneltuneError('INVALID_INPUT', `incomplete gamma needs a > 0, got ${a}`)
  if (!(x >= 0)) throw kerneltuneError('INVALID_INPUT', `incomplete gamma needs x >= 0, got ${x}`)
  if (x === 0) return [0, 1]
  if (x === Infinity) return [1, 0]
  const lnFront = -x + a * Math.log(x) - lnGamma(a)
  if (x < a + 1) {
    // Series: P = e^{-x} x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n)).
    let ap = a
    let sum = 1 / a
    let del = sum
    for (let n = 0; n < MAX_ITER; n++) {
      ap += 1
      del *= x / ap
      sum += del
      if (Math.abs(del) < Math.abs(sum) * EPS) {
        const p = sum * Math.exp(lnFront)
        return [p, 1 - p]
      }
    }
    throw kerneltuneError('INTERNAL', `incomplete gamma series did not converge for a=${a}, x=${x}`)
  }
  // Continued fraction for Q = 1 − P (modified Lentz).
  let b = x + 1 - a
  let c = 1 / TINY
  let d = 1 / b
  let h = d
  for (let i = 1; i <= MAX_ITER; i++) {
    const an = -i * (i - a)
    b += 2
    d = an * d + b
    if (Math.abs(d) < TINY) d = TINY
    c = b + an / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < EPS) {
      const q = Math.exp(lnFront) * h
      return [1 - q, q]
    }
  }
  throw kerneltuneError('INTERNAL', `incomplete gamma fraction did not converge for a=${a}, x=${x}`)
}
