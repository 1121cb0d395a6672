/**
 * The run view's figures with their units, as plain functions (no DOM, unit-tested): a
 * combination's value and its interval against the baseline, and the "best so far" line. A paired
 * (interleaved) comparison's interval is of the ratio to the baseline, so it reads in percent; a
 * sequential one's is of the difference, in the metric's unit. The units come from
 * @kerneltune/serving, the table the run's verdict uses too.
 */
import { signedPercent, unitOf, withUnit } from '@kerneltune/serving'
import type { RunCombo, RunVerdict } from './api-types.gen.ts'

type Stored = NonNullable<RunCombo['comparison']> & { design?: string }

/** A comparison stored by the interleaved design: improvement and interval are ratios to the baseline minus one. */
export const isPaired = (c: RunCombo['comparison']): boolean => (c as Stored | null)?.design === 'interleaved'

/** The metric a combination's comparison is on, else the run's. */
const metricOf = (c: RunCombo, runMetric: string) => c.comparison?.metric ?? runMetric

/** The combination's value on the compared metric, with its unit ('41.5 tokens/s'); throughput when nothing was compared. */
export function valueCell(c: RunCombo, runMetric: string): string {
  const tm = c.comparison && !isPaired(c.comparison) ? c.comparison.trimmedMean : null
  if (tm !== null && tm !== undefined) return withUnit(tm, unitOf(metricOf(c, runMetric)))
  return withUnit(c.metrics?.throughputTps, 'tokens/s')
}

/** '[-52.0%, +11585.0%] of the baseline' for a paired ratio; '[-0.52, 115.85] tokens/s' for a difference. */
export function intervalCell(c: RunCombo, runMetric: string): string {
  const i = c.comparison?.interval
  if (!i || i.low === null || i.high === null || !Number.isFinite(i.low) || !Number.isFinite(i.high)) return '—'
  if (isPaired(c.comparison)) return `[${signedPercent(i.low)}, ${signedPercent(i.high)}] ratio to the baseline`
  const unit = unitOf(metricOf(c, runMetric))
  return `[${withUnit(i.low, '')}, ${withUnit(i.high, '')}]${unit ? ` ${unit}` : ''} difference`
}

/**
 * "Best so far": while the run streams, the best throughput measured (tokens/s); once it has a
 * verdict, the best candidate in the quantity that decided, in that quantity's unit.
 */
export function bestText(live: number | null, verdict: RunVerdict | null | undefined, simulated: boolean): string {
  if (live !== null && !verdict) return `${withUnit(live, 'tokens/s')} throughput${simulated ? ' (predicted)' : ''}`
  const b = verdict?.best
  if (!b) return live !== null ? `${withUnit(live, 'tokens/s')} throughput${simulated ? ' (predicted)' : ''}` : '—'
  const role = verdict.kind === 'winner' && verdict.index === b.index ? 'the winner' : 'best candidate, not applied'
  return `${b.quantity} ${withUnit(b.value, b.unit)}, #${b.index} (${role}${simulated ? ', predicted' : ''})`
}
