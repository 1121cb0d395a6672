/**
 * Distribution summaries as vLLM's serving benchmark reports them: mean, median, standard
 * deviation and percentiles with numpy's default (linear interpolation between order statistics),
 * so figures from kerneltune and from `benchmark_serving.py` on the same samples agree.
 */

export interface Distribution {
  readonly count: number
  readonly mean: number
  readonly std: number
  readonly p50: number
  readonly p90: number
  readonly p95: number
  readonly p99: number
  readonly min: number
  readonly max: number
}

/** numpy.percentile(xs, q) with the default 'linear' method; NaN for an empty list. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const pos = (q / 100) * (sorted.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/** Summary of a sample; every field is NaN (count 0) for an empty one, as numpy would give. */
export function summarize(xs: readonly number[]): Distribution {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  const n = sorted.length
  const mean = n === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / n
  // Population standard deviation (numpy's default ddof=0), as vLLM reports it.
  const std = n === 0 ? Number.NaN : Math.sqrt(sorted.reduce((a, b) => a + (b - mean) ** 2, 0) / n)
  return {
    count: n,
    mean,
    std,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: n === 0 ? Number.NaN : sorted[0]!,
    max: n === 0 ? Number.NaN : sorted[n - 1]!,
  }
}
