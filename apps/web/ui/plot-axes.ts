/**
 * The Pareto plot's axes, as plain functions (no DOM, unit-tested): the domain each axis spans,
 * its ticks and labels, the left margin its labels need, and whether the points lie inside the
 * baseline's measurement noise. A plot that stretches a 0.2% spread over its whole height reads as
 * a large difference; these keep the axis honest: it always includes the noise band, and never
 * spans less than ±MIN_REL_HALF_SPAN of its centre. Nor does it run to values that cannot exist:
 * a latency or a throughput is never negative, so an axis given a lower bound (`min`: 0) starts
 * there at the lowest, and a noise band wider than its centre (a loaded machine's, ±215%) is cut
 * at it rather than stretching the axis to −1,000 ms (issue 34 item 13).
 */

/**
 * The narrowest an axis may be, as a fraction of its centre value on each side. A display choice,
 * not a measured noise: with no noise estimate (a simulated run, a single repetition), it keeps a
 * sub-percent difference from filling the axis.
 */
export const MIN_REL_HALF_SPAN = 0.01

/** The baseline's noise on one axis: its plotted value and the relative half-width of its 95% interval. */
export interface AxisNoise { centre: number; relHalfWidth: number; n: number }

export interface AxisPlan {
  domain: [number, number]
  ticks: number[]
  /** Decimals every tick label shows; `labels` are the ticks formatted with them. */
  decimals: number
  labels: string[]
  /** The noise band [low, high] around the baseline, when the run measured a non-zero one; inside the domain. */
  band: [number, number] | null
  /** The band reached below the axis's lower bound and was cut there. */
  bandClipped: boolean
  /** (max − min) of the points, relative to the baseline's value (or the points' middle). */
  spreadRel: number
  /** Every point lies inside the band (false without a band). */
  withinNoise: boolean
}

/** Ticks at 1, 2 or 5 × 10^k steps, about `count` of them, covering [lo, hi]. */
export function niceStep(lo: number, hi: number, count = 5): number {
  const raw = (hi - lo) / Math.max(1, count)
  if (!(raw > 0) || !Number.isFinite(raw)) return 1
  const pow = 10 ** Math.floor(Math.log10(raw))
  const f = raw / pow
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * pow
}

/** Decimals a tick step needs to be shown exactly (0.05 → 2, 0.2 → 1, 5 → 0). */
export function decimalsFor(step: number): number {
  // The small epsilon absorbs floating-point error (log10(0.1) may come out as -0.9999…).
  return Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))
}

export const formatTick = (v: number, decimals: number): string =>
  v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })

/** What an axis's quantity allows: `min`, the least value it can take (0 for a latency or a throughput). */
export interface AxisBounds { min?: number }

/**
 * Plans one axis over the plotted values. The domain holds every value and the noise band, is at
 * least ±MIN_REL_HALF_SPAN of its centre wide, ends on ticks, and starts no lower than `bounds.min`
 * (the band is cut there).
 */
export function planAxis(values: readonly number[], noise: AxisNoise | null, bounds: AxisBounds = {}): AxisPlan {
  const least = bounds.min ?? -Infinity
  const finite = values.filter(Number.isFinite)
  const min = finite.length ? Math.min(...finite) : Math.max(0, least)
  const max = finite.length ? Math.max(...finite) : Math.max(1, least + 1)
  const raw: [number, number] | null = noise && noise.relHalfWidth > 0 && Number.isFinite(noise.centre)
    ? [noise.centre - Math.abs(noise.centre) * noise.relHalfWidth, noise.centre + Math.abs(noise.centre) * noise.relHalfWidth]
    : null
  const band: [number, number] | null = raw ? [Math.max(least, raw[0]), raw[1]] : null
  let lo = Math.max(least, Math.min(min, band?.[0] ?? min))
  let hi = Math.max(max, band?.[1] ?? max)
  const mid = (lo + hi) / 2
  const floor = Math.abs(mid) * MIN_REL_HALF_SPAN || 1
  // Widened about the middle, then moved up whole if that crossed the lower bound.
  if ((hi - lo) / 2 < floor) [lo, hi] = [mid - floor, mid + floor]
  if (lo < least) [lo, hi] = [least, hi + (least - lo)]
  const step = niceStep(lo, hi)
  // Ticks at multiples of the step cannot fall below the bound when it is one of them (0 always is).
  const first = Math.max(Math.floor(lo / step + 1e-9), Math.ceil(least / step - 1e-9))
  const last = Math.ceil(hi / step - 1e-9)
  // Ticks as integer multiples of the step, so that no rounding error accumulates along the axis.
  const ticks = Array.from({ length: last - first + 1 }, (_, i) => (first + i) * step)
  const decimals = decimalsFor(step)
  const ref = noise && Number.isFinite(noise.centre) && noise.centre !== 0 ? Math.abs(noise.centre) : Math.abs((min + max) / 2) || 1
  return {
    domain: [ticks[0]!, ticks.at(-1)!],
    ticks,
    decimals,
    labels: ticks.map((t) => formatTick(t, decimals)),
    band,
    bandClipped: raw !== null && band !== null && band[0] > raw[0],
    spreadRel: (max - min) / ref,
    withinNoise: band !== null && finite.length > 0 && finite.every((v) => v >= band[0] && v <= band[1]),
  }
}

/**
 * The left margin (px) the y labels need: Plot's default font is 10px sans-serif, whose digits and
 * separators are at most about 0.62em wide; the tick (6px) and its gap (3px) come on top.
 */
export function leftMarginFor(labels: readonly string[]): number {
  const longest = Math.max(0, ...labels.map((l) => l.length))
  return Math.max(40, Math.ceil(longest * 6.2 + 9 + 6))
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.001 ? 3 : x < 0.01 ? 2 : 1)}%`

/**
 * What the plot says about its spread, one sentence per axis: inside the noise, outside it, or
 * (simulated) the model's, since a prediction repeated has no noise to compare with.
 */
export function noiseNote(axis: string, plan: AxisPlan, noise: AxisNoise | null, simulated: boolean): string {
  if (simulated) return `${axis}: the ${pct(plan.spreadRel)} spread is the model's, not a measurement: nothing was run, so there is no noise to compare it with.`
  if (!noise) return `${axis}: spread ${pct(plan.spreadRel)}; no noise estimate (the baseline needs at least 2 repetitions).`
  const band = `±${pct(noise.relHalfWidth)}, the baseline's 95% interval over ${noise.n} repetitions${plan.bandClipped ? `, drawn from ${formatTick(plan.domain[0], plan.decimals)} up: no value lies below it` : ''}`
  return plan.withinNoise
    ? `${axis}: all candidates within measurement noise (${band}); the spread of ${pct(plan.spreadRel)} is not a difference this run can tell apart.`
    : `${axis}: spread ${pct(plan.spreadRel)}, beyond the measurement noise (${band}).`
}
