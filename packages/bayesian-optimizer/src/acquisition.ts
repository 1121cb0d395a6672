/** Acquisition functions for minimisation, on the GP's normalised scale. */

const INV_SQRT2PI = 1 / Math.sqrt(2 * Math.PI)

export function normalPdf(z: number): number {
  return INV_SQRT2PI * Math.exp(-0.5 * z * z)
}

/** Standard normal CDF via erfc (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7). */
export function normalCdf(z: number): number {
  const x = -z / Math.SQRT2
  const t = 1 / (1 + 0.5 * Math.abs(x))
  const y =
    t *
    Math.exp(
      -x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    )
  const erfc = x >= 0 ? y : 2 - y
  return 0.5 * erfc
}

/** Expected improvement below `best`. Far in the tail it uses the asymptotic form so that points keep distinct, ordered scores instead of all rounding to 0. */
export function expectedImprovement(mean: number, sd: number, best: number): number {
  if (sd <= 1e-12) return Math.max(best - mean, 0)
  const z = (best - mean) / sd
  if (z < -6) return (sd * normalPdf(z)) / (z * z) * (1 - 3 / (z * z))
  return sd * (z * normalCdf(z) + normalPdf(z))
}

/** Lower confidence bound, negated so that larger is better like EI. */
export function upperConfidenceBound(mean: number, sd: number, kappa: number): number {
  return -(mean - kappa * sd)
}
