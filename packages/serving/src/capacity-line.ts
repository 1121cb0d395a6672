/**
 * A capacity search's result in words, for `bench capacity`, the sweep's capacity reports and
 * `run show` of a run that stored one (runtime-neutral and light: run show loads it with the run).
 */
import type { CapacityResult, CapacityUnit } from './capacity.ts'

/** A number with exactly `digits` decimals, grouped in thousands (the CLI's figures read the same). */
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(n))

export const levelText = (unit: CapacityUnit, x: number): string => (unit === 'req/s' ? `${fixed(x, 3)} req/s` : `concurrency ${x}`)

/** The capacity in one line: 'capacity: 4.200 req/s (met at 4.200, missed at 4.500; 11 measurements)'. */
export function capacityLine(c: Pick<CapacityResult<unknown>, 'value' | 'low' | 'high' | 'unit' | 'stop'> & { readonly points: readonly unknown[] }): string {
  const n = `${c.points.length} measurements`
  // A time budget ends a search where it is: the line says what the measurements so far bracket.
  const cut = c.stop === 'deadline'
  if (cut && c.points.length === 0) return 'capacity: not measured: the time budget ended before the search\'s first measurement'
  if (c.value === null) return cut ? `capacity: under ${levelText(c.unit, c.high!)}: the objectives were missed there, and the time budget ended the search before a level met them (${n})` : `capacity: none: the objectives were missed even at ${levelText(c.unit, c.high!)} (${n})`
  if (c.high === null) return cut ? `capacity: at least ${levelText(c.unit, c.value)}: the objectives still held at the highest level measured when the time budget ended the search (${n})` : `capacity: at least ${levelText(c.unit, c.value)}: the objectives still held at the highest level tried (${n})`
  const why = c.stop === 'budget' ? '; measurement budget spent before the interval narrowed' : cut ? '; the time budget ended the search before the interval narrowed' : ''
  return `capacity: ${levelText(c.unit, c.value)} (met at ${levelText(c.unit, c.low)}, missed at ${levelText(c.unit, c.high)}${why}; ${n})`
}

/** A capacity result as --json gives it: each point's level and verdict next to its figures. */
export function capacityJson<F extends object>(c: CapacityResult<F>): Record<string, unknown> {
  return { value: c.value, low: c.low, high: c.high, unit: c.unit, stop: c.stop, points: c.points.map((p) => ({ level: p.level, phase: p.phase, repeat: p.repeat, feasible: p.feasible, ...p.figures })) }
}
