/**
 * A capacity search's result in words, for `bench capacity` and for `run show` of the run it
 * stored (no Node imports: run show loads it with the run).
 */
import type { CapacityResult, CapacityUnit } from '@kerneltune/serving'
import { fmt } from '../../cli/output.ts'

export const levelText = (unit: CapacityUnit, x: number) => (unit === 'req/s' ? `${fmt(x, 3)} req/s` : `concurrency ${x}`)

/** The capacity in one line: 'capacity: 4.2 req/s (met at 4.2, missed at 4.5; 11 measurements)'. */
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
