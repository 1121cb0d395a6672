/**
 * A run's latency objectives (issue 25), when it states them: the objectives, each candidate's
 * feasibility with the objectives it missed and by how much, goodput under them, the Pareto front
 * of throughput against the chosen latency, and what the objectives alone decide (the run's one
 * verdict weighs it with the design's evidence). An infeasible candidate is never the winner; when
 * the defaults miss the objectives, the view says so first.
 */
import { unitOf } from '@kerneltune/serving'
import type { Objectives } from './api-types.gen.ts'

const n = (v: number | null | undefined, d = 2) => (v === undefined || v === null || !Number.isFinite(v) ? '—' : v.toFixed(d))
/** 'threads=1 parallel=4', or '(defaults)' for the empty combination. */
export const comboText = (c: Record<string, string> | undefined) => (c ? Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)' : '')

type Violation = Objectives['candidates'][number]['violations'][number]

/** 'ttft_p99_ms 812.4 > 500 (+62%)', as the CLI says it. */
export function violationText(v: Violation): string {
  if (v.metric === 'failed_requests') return `${v.value} failed request${v.value === 1 ? '' : 's'}`
  if (v.value === null) return `${v.metric}: not measured`
  return `${v.metric} ${v.value.toFixed(1)} > ${v.limit} (+${((v.value / v.limit - 1) * 100).toFixed(0)}%)`
}

export const sloText = (o: Objectives) => o.slo.map((x) => `${x.metric.toUpperCase()} ${x.stat} ≤ ${x.limitMs} ms`).join(', ') || 'none stated'

export function ObjectivesView({ o }: { o: Objectives }) {
  const front = new Set(o.pareto)
  const d = o.decision
  return (
    <section className="card" aria-label="Latency objectives" data-testid="objectives">
      <h3>Latency objectives: {sloText(o)}</h3>
      <p>Objective: <strong>{o.objective}</strong>. A candidate that misses an objective is infeasible and never the winner.</p>
      {d && d.defaultsFeasible === false && <p className="error" role="alert" data-testid="defaults-infeasible">The defaults miss the objectives: the winner must meet them.</p>}
      {/* The objectives' ranking is evidence: the run's one verdict (above) weighs it with the design's. */}
      {d && <p data-testid="objectives-decision">By the objectives alone: {d.reason}.</p>}
      <table>
        <caption>Candidates against the objectives; Pareto front of {o.paretoAxes.throughput} against {o.paretoAxes.latency}</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Combination</th><th scope="col">Feasible</th><th scope="col">Missed</th><th scope="col">Goodput (requests/s)</th><th scope="col">{o.objective}{unitOf(o.objective) ? ` (${unitOf(o.objective)})` : ''}</th><th scope="col">Pareto</th></tr></thead>
        <tbody>
          {o.candidates.map((c) => (
            <tr key={c.index} data-candidate={c.index} data-feasible={c.feasible} data-pareto={front.has(c.index)}>
              <td>{c.index}</td><td>{comboText(c.combo)}</td><td>{c.feasible ? 'yes' : 'no'}</td>
              <td>{c.violations.map(violationText).join('; ') || '—'}</td>
              <td>{c.goodput ? `${n(c.goodput.requestsPerSecond)} (${c.goodput.met} met)` : '—'}</td>
              <td>{n(c.objectiveValue)}</td><td>{front.has(c.index) ? 'on the front' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
