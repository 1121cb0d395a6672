/**
 * The unit of every figure kerneltune reports, by the name of what it measures, and the words for
 * a value with its unit. A run's metrics, the experiment designs' metrics and the objectives name
 * their quantities differently (throughputTps, decodeTps, goodput, ttft_p99_ms); a figure printed
 * without its unit, or with another quantity's, read as a goodput in tokens/s (issue 34 item 11).
 * Here, runtime-neutral, so that the tuner's verdict and the dashboard share one table.
 */

/** The unit of a quantity by its name: tokens/s, requests/s or ms; '' for one this does not know. */
export function unitOf(quantity: string): string {
  if (quantity === 'goodput' || quantity === 'requestThroughput') return 'requests/s'
  if (quantity === 'outputTokensPerSecond' || /Tps$/.test(quantity)) return 'tokens/s'
  if (/Ms$/.test(quantity) || /_ms$/.test(quantity)) return 'ms'
  return ''
}

/** Whether more of the quantity is better: throughputs yes, latencies no. */
export const higherIsBetterFor = (quantity: string): boolean => unitOf(quantity) !== 'ms'

/** A value in its unit: 65.3 requests/s, 0.412 ms; three significant digits at most below 100. */
export function withUnit(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  const a = Math.abs(value)
  const text = value.toFixed(a >= 10 ? 1 : a >= 1 ? 2 : 3)
  return unit ? `${text} ${unit}` : text
}

/** A ratio minus one as a signed percentage: 0.034 is '+3.4%'. */
export function signedPercent(ratioMinusOne: number | null | undefined): string {
  if (ratioMinusOne === null || ratioMinusOne === undefined || !Number.isFinite(ratioMinusOne)) return '—'
  return `${ratioMinusOne >= 0 ? '+' : ''}${(ratioMinusOne * 100).toFixed(1)}%`
}

/**
 * A difference from the defaults, `improvement` signed so that positive is better, in the words of
 * the quantity: '+12.0%' for a throughput, '12.0% lower' for a latency.
 */
export function improvementText(improvement: number | null | undefined, quantity: string): string {
  if (improvement === null || improvement === undefined || !Number.isFinite(improvement)) return '—'
  if (higherIsBetterFor(quantity)) return signedPercent(improvement)
  return `${(Math.abs(improvement) * 100).toFixed(1)}% ${improvement >= 0 ? 'lower' : 'higher'}`
}
