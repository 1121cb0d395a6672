/**
 * The run's one verdict (the tuner's runVerdict, stored with the summary): its headline, every
 * figure with its unit, and why. Nothing else in the run view names a winner: the objectives and
 * the design show their evidence, this says what to do with it (issue 34 item 11).
 */
import type { RunVerdict } from './api-types.gen.ts'

export function VerdictView({ v }: { v: RunVerdict }) {
  return (
    <>
      <h3 data-testid="verdict">{v.headline}</h3>
      {v.figures.length > 0 && (
        <dl className="figures" data-testid="verdict-figures">
          {v.figures.map((f) => <div key={f.label} data-unit={f.unit}><dt>{f.label}</dt><dd>{f.text}</dd></div>)}
        </dl>
      )}
      {v.reasons.length > 0 && <ul className="reason" aria-label="Why" data-testid="verdict-reasons">{v.reasons.map((r) => <li key={r}>{r}</li>)}</ul>}
    </>
  )
}
