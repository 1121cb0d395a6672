/**
 * Capacity: the highest load (open-loop request rate, or closed-loop concurrency) at which the
 * latency objectives hold. Bracketing first (from a start level, multiply by `growth` while the
 * objectives hold, divide while they do not), then bisection between the highest level that held
 * and the lowest that did not, every bisection level measured `repeats` times and judged by the
 * majority: near the boundary one measurement is a coin toss, and a majority of three is wrong
 * less often than one. The search is pure: the measurement is a function the caller gives, so the
 * algorithm is tested on synthetic, noisy measure functions and run on real servers alike.
 */
import { KerneltuneError } from '@kerneltune/core'

export type CapacityUnit = 'req/s' | 'concurrency'

export interface CapacityPoint<F> {
  readonly level: number
  /** 0-based repeat at this level (bracketing measures once, bisection `repeats` times). */
  readonly repeat: number
  readonly phase: 'bracket' | 'bisect'
  readonly feasible: boolean
  readonly figures: F
}

export interface CapacityResult<F> {
  /** The highest level judged to meet the objectives; null when even the lowest level missed them. */
  readonly value: number | null
  /** The capacity lies in [low, high): low met the objectives (0 when none did), high did not (null when the highest level tried still met them). */
  readonly low: number
  readonly high: number | null
  readonly unit: CapacityUnit
  /** Every measurement, in the order taken. */
  readonly points: readonly CapacityPoint<F>[]
  /**
   * Why the search ended: 'converged' (interval within tolerance), 'max' (the top level still met
   * them), 'min' (the bottom level missed them), 'budget' (maxMeasurements spent), 'deadline' (the
   * caller's time ran out: the interval is the one the measurements so far bracket).
   */
  readonly stop: 'converged' | 'max' | 'min' | 'budget' | 'deadline'
}

export interface CapacityOptions<F> {
  readonly unit: CapacityUnit
  /** Measures one level once: whether the objectives held, and the figures to keep. */
  readonly measure: (level: number, info: { readonly phase: 'bracket' | 'bisect'; readonly repeat: number }) => Promise<{ readonly feasible: boolean; readonly figures: F }>
  readonly start: number
  /** Bounds of the search. Defaults: req/s 0.05 .. 1000; concurrency 1 .. 1024. */
  readonly min?: number
  readonly max?: number
  /** Bracketing step factor. Default 2. */
  readonly growth?: number
  /** Bisection stops when high - low <= tolerance (req/s: relative to low, default 0.1; concurrency: absolute, 1). */
  readonly tolerance?: number
  /** Measurements per bisection level (odd for a clear majority). Default 3. */
  readonly repeats?: number
  /** Measurements at most, all phases. Default 40. */
  readonly maxMeasurements?: number
  /**
   * The caller's time: once aborted no measurement starts, and a measurement that fails after it
   * aborted was cut short by it and is dropped. The search then returns the interval it had,
   * stop 'deadline'. (A measurement that fails before is an error, as without a deadline.)
   */
  readonly deadline?: AbortSignal
}

/** Rounds a level to the unit: concurrency is a whole number, a rate keeps 4 significant digits. */
const snap = (unit: CapacityUnit, x: number) => (unit === 'concurrency' ? Math.round(x) : Number(x.toPrecision(4)))

export async function searchCapacity<F>(o: CapacityOptions<F>): Promise<CapacityResult<F>> {
  const unit = o.unit
  const min = o.min ?? (unit === 'concurrency' ? 1 : 0.05)
  const max = o.max ?? (unit === 'concurrency' ? 1024 : 1000)
  const growth = o.growth ?? 2
  const repeats = o.repeats ?? 3
  const budget = o.maxMeasurements ?? 40
  const bad: string[] = []
  if (!(min > 0) || !(max >= min)) bad.push(`bounds must satisfy 0 < min <= max, got ${min}..${max}`)
  if (!(o.start >= min && o.start <= max)) bad.push(`start ${o.start} is outside ${min}..${max}`)
  if (!(growth > 1)) bad.push(`growth must exceed 1, got ${growth}`)
  if (!Number.isInteger(repeats) || repeats < 1) bad.push(`repeats must be a positive integer, got ${repeats}`)
  if (!Number.isInteger(budget) || budget < 1) bad.push(`maxMeasurements must be a positive integer, got ${budget}`)
  if (unit === 'concurrency' && (!Number.isInteger(o.start) || !Number.isInteger(min) || !Number.isInteger(max))) bad.push('concurrency levels are whole numbers')
  if (bad.length) throw new KerneltuneError('INVALID_INPUT', `capacity search: ${bad.join('; ')}`)
  const tolerance = o.tolerance ?? (unit === 'concurrency' ? 1 : 0.1)
  const points: CapacityPoint<F>[] = []

  /** Why judge() could not decide a level: the measurement budget, or the deadline. */
  let ended: 'budget' | 'deadline' = 'budget'
  const undecided = (why: 'budget' | 'deadline') => {
    ended = why
    return undefined
  }
  const judge = async (level: number, phase: 'bracket' | 'bisect'): Promise<boolean | undefined> => {
    const n = phase === 'bracket' ? 1 : repeats
    let yes = 0
    for (let repeat = 0; repeat < n; repeat++) {
      if (o.deadline?.aborted) return undecided('deadline')
      if (points.length >= budget) return undecided('budget')
      let r: Awaited<ReturnType<CapacityOptions<F>['measure']>>
      try {
        r = await o.measure(level, { phase, repeat })
      } catch (e) {
        if (o.deadline?.aborted) return undecided('deadline')
        throw e
      }
      points.push({ level, repeat, phase, feasible: r.feasible, figures: r.figures })
      if (r.feasible) yes++
      // Stop early once the majority is decided either way.
      if (yes * 2 > n || (repeat + 1 - yes) * 2 >= n) break
    }
    return yes * 2 > n
  }
  const done = (low: number, high: number | null, stop: CapacityResult<F>['stop']): CapacityResult<F> => ({ value: low > 0 ? low : null, low, high, unit, points, stop })

  // Bracketing.
  let low = 0
  let high: number | null = null
  let level = o.start
  const first = await judge(level, 'bracket')
  if (first === undefined) return done(0, null, ended)
  if (first) {
    low = level
    while (high === null) {
      if (level >= max) return done(low, null, 'max')
      level = snap(unit, Math.min(max, Math.max(level + (unit === 'concurrency' ? 1 : 0), level * growth)))
      const ok = await judge(level, 'bracket')
      if (ok === undefined) return done(low, null, ended)
      if (ok) low = level
      else high = level
    }
  } else {
    high = level
    while (low === 0) {
      if (level <= min) return done(0, high, 'min')
      level = snap(unit, Math.max(min, Math.min(level - (unit === 'concurrency' ? 1 : 0), level / growth)))
      const ok = await judge(level, 'bracket')
      if (ok === undefined) return done(0, high, ended)
      if (ok) low = level
      else high = level
    }
  }

  // Bisection: geometric midpoints for rates (the bracket spans a factor), arithmetic for concurrency.
  const narrow = (lo: number, hi: number) => (unit === 'concurrency' ? hi - lo <= tolerance : hi - lo <= tolerance * lo)
  while (!narrow(low, high)) {
    const mid = snap(unit, unit === 'concurrency' ? Math.floor((low + high) / 2) : Math.sqrt(low * high))
    if (mid <= low || mid >= high) break
    const ok = await judge(mid, 'bisect')
    if (ok === undefined) return done(low, high, ended)
    if (ok) low = mid
    else high = mid
  }
  return done(low, high, 'converged')
}
