/** Effect size: how big a difference is, next to whether it is significant. */
import { checkSamples, mean, variance } from './descriptive.ts'

/**
 * Cohen's d of a − b with the pooled standard deviation
 * √(((nₐ−1)sₐ² + (n_b−1)s_b²) / (nₐ+n_b−2)). Zero spread gives 0 (equal means) or ±Infinity.
 */
export function cohensD(a: readonly number[], b: readonly number[]): number {
  checkSamples(a, 2, 'first sample')
  checkSamples(b, 2, 'second sample')
  const diff = mean(a) - mean(b)
  const pooled = Math.sqrt(((a.length - 1) * variance(a) + (b.length - 1) * variance(b)) / (a.length + b.length - 2))
  if (pooled === 0) return diff === 0 ? 0 : diff > 0 ? Infinity : -Infinity
  return diff / pooled
}

export type EffectLabel = 'negligible' | 'small' | 'medium' | 'large'

/** Cohen's conventional labels: |d| < 0.2 negligible, < 0.5 small, < 0.8 medium, else large. */
export function effectLabel(d: number): EffectLabel {
  const m = Math.abs(d)
  return m < 0.2 ? 'negligible' : m < 0.5 ? 'small' : m < 0.8 ? 'medium' : 'large'
}
