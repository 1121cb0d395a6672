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
  if (c.value === null) return `capacity: none: the objectives were missed even at ${levelText(c.unit, c.high!)} (${n})`
  if (c.high === null) return `capacity: at least ${levelText(c.unit, c.value)}: the objectives still held at the highest level tried (${n})`
  return `capacity: ${levelText(c.unit, c.value)} (met at ${levelText(c.unit, c.low)}, missed at ${levelText(c.unit, c.high)}${c.stop === 'budget' ? '; measurement budget spent before the interval narrowed' : ''}; ${n})`
}

