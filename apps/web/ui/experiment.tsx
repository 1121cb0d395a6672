/**
 * How a run was measured, and whether this machine's noise let the measurement mean anything
 * (issue 25). The interleaved design measures the defaults twice in every round (the baseline and
 * an A/A copy of it): when its test calls the copy better than the original, the machine's noise
 * alone produced a "winner", and the view says so before anything else. It shows the A/A
 * comparison, the rounds, seed and test, and each combination's paired comparison with its replicate
 * variance (the noise a Tier 2 session reads). It is evidence: the run's one verdict (verdict.tsx)
 * says what follows from it. With too few rounds for the test to reach p < 0.05, the A/A arm
 * cannot be "declared" anything and its false-winner rate is 0 by construction: the view shows
 * what the arm read instead, from the verdict's evidence (issue 34 item 12). A sequential run, or
 * a run without a design's summary, measured the defaults once: it has no A/A check, and says so.
 */
import type { Experiment, PairedComparison, RunVerdict } from './api-types.gen.ts'
import { comboText } from './objectives.tsx'

type Interleaved = Extract<Experiment, { design: 'interleaved' }>

const fin = (v: number | null | undefined): v is number => v !== undefined && v !== null && Number.isFinite(v)
/** A ratio minus one as a signed percentage: 0.034 is '+3.4%'. */
export const pct = (v: number | null | undefined) => (fin(v) ? `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%` : '—')
const p = (v: number | null | undefined) => (fin(v) ? (v < 0.001 ? v.toExponential(1) : v.toFixed(3)) : '—')

/** '+1.2%, p = 0.031, 95% interval [+0.1%, +2.3%] over 12 rounds (sign-flip)' */
export function comparisonText(c: PairedComparison): string {
  return `${pct(c.improvement)}, p = ${p(c.pValue)}, 95% interval [${pct(c.interval.low)}, ${pct(c.interval.high)}] over ${c.n} rounds (${c.test}${c.trim ? `, ${c.trim * 100}% trimmed` : ''})`
}

function AaVerdict({ e, aa, power }: { e: Interleaved; aa: RunVerdict['aa']; power: RunVerdict['power'] }) {
  const c = e.aa.comparison
  // Too few rounds to decide, or an A/A arm as far from the defaults as any candidate: what it read is the finding.
  if (aa && !e.aa.declaredWinner && (aa.noiseDominates || power?.canDecide === false)) {
    return <p className={aa.noiseDominates ? 'error' : undefined} role={aa.noiseDominates ? 'alert' : undefined} data-testid="aa-verdict" data-aa={aa.noiseDominates ? 'noise' : 'underpowered'}>{aa.text}</p>
  }
  if (e.aa.declaredWinner) {
    return (
      <p className="error" role="alert" data-testid="aa-verdict" data-aa="false-winner">
        False winner: the A/A arm (the defaults, measured against themselves) was declared better than the defaults{c ? ` (${comparisonText(c)})` : ''}.
        This machine's noise defeats the test at {e.rounds} rounds, so no result of this run can be trusted: measure more rounds or on a quieter machine.
      </p>
    )
  }
  return (
    <p data-testid="aa-verdict" data-aa={c ? 'passed' : 'not-compared'}>
      {c
        ? `The A/A arm was not declared a winner: the test did not tell the defaults apart from themselves (${comparisonText(c)}).`
        : 'The A/A arm could not be compared with the defaults (too few rounds measured both): this run has no evidence about its noise.'}
    </p>
  )
}

export function ExperimentView({ e, combos, verdict }: { e: Experiment | undefined; combos: ReadonlyMap<number, Record<string, string>>; verdict: RunVerdict | null | undefined }) {
  if (!e || e.design === 'sequential') {
    return (
      <section className="card" aria-label="Measurement design" data-testid="experiment" data-design="sequential">
        <h3>Design: sequential</h3>
        <p data-testid="aa-verdict" data-aa="none">No A/A check: this run measured the defaults once, before the combinations, so nothing in it says how large a difference this machine's noise alone produces. The interleaved design has one.</p>
      </section>
    )
  }
  // Only where the test can reach p < alpha at these rounds (the verdict's evidence says): below that it is 0 by construction.
  const rate = verdict?.aa ? verdict.aa.falseWinnerRate : null
  const indices = Object.keys(e.replicateVariance).concat(Object.keys(e.paired)).map(Number).filter((i, k, a) => a.indexOf(i) === k).sort((a, b) => a - b)
  return (
    <section className={`card${e.aa.declaredWinner ? ' verdict-fail' : ''}`} aria-label="Measurement design" data-testid="experiment" data-design="interleaved">
      <h3>Design: interleaved, {e.rounds} rounds{e.partialRound ? ' (the last one partial)' : ''}, seed {e.seed}, {e.test} test</h3>
      <AaVerdict e={e} aa={verdict?.aa} power={verdict?.power} />
      {fin(rate) && <p data-testid="aa-rate">At this noise, {(rate * 100).toFixed(1)}% of the A/A arm's sign-flip resamples would be called better than the defaults (the test's false-winner rate on this machine; 5% is what the test allows).</p>}
      <p>Measured on {e.device}{e.worker ? ` by worker ${e.worker}` : ''}; every combination once per round in a seeded random order beside the baseline and the A/A arm, each compared with the baseline of the same rounds.</p>
      {indices.length > 0 && (
        <table data-testid="replicates">
          <caption>Paired comparisons with the baseline ({e.metric}) and the replicate variance of each combination's log ratio to the baseline over rounds</caption>
          <thead><tr><th scope="col">#</th><th scope="col">Combination</th><th scope="col">Against the baseline (ratio)</th><th scope="col">Paired test</th><th scope="col">Replicate variance</th></tr></thead>
          <tbody>
            {indices.map((i) => {
              const c = e.paired[String(i)]
              const v = e.replicateVariance[String(i)]
              return (
                <tr key={i} data-replicate={i}>
                  <td>{i}</td><td>{comboText(combos.get(i))}</td><td>{c ? comparisonText(c) : '—'}</td><td>{c?.verdict ?? '—'}</td>
                  <td>{fin(v) ? v.toExponential(2) : '—'}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
