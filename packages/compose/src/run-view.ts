/**
 * A stored run in words, row by row: what was measured, on what, how many times, and, when the
 * backend stands in for the target engine or device, that the numbers are a proxy's; its
 * objectives, its one verdict (the tuner's runVerdict, as stored) and its design. `kerneltune run
 * show` prints these rows. RunView names only what is read, so the API's generated run types (the
 * server's response schemas) fit it as they are.
 */
import { describeSlo, parseObjective, type LatencyObjective } from '@kerneltune/serving'

type Combo = Readonly<Record<string, string>>
interface Proxy { readonly on: string; readonly of: string; readonly engine: boolean; readonly device: boolean }

/** The parts of a run's summary the rows read (@kerneltune/tuner's RunSummary, as the API returns it). */
export interface RunSummaryView {
  readonly proxy?: Proxy | null
  readonly simulated?: boolean
  readonly devices?: readonly string[]
  readonly heldAtDefault?: Readonly<Record<string, string>>
  readonly objectives?: {
    readonly slo: readonly LatencyObjective[]; readonly objective: string; readonly note?: string; readonly pareto: readonly number[]
    readonly paretoAxes: { readonly throughput: string; readonly latency: string }
    readonly decision?: { readonly defaultsFeasible: boolean | null; readonly reason: string }
  }
  readonly bench?: { readonly note: string }
  readonly capacity?: unknown
  readonly notMeasured?: readonly string[]
  readonly verdict?: { readonly headline: string; readonly index: number | null; readonly reasons: readonly string[]; readonly figures: readonly { readonly label: string; readonly text: string }[]; readonly aa?: { readonly text: string } }
  readonly winner?: { readonly index: number; readonly combo: Combo; readonly notToldApart: Readonly<Record<string, readonly string[]>> } | null
  readonly baseline?: { readonly index: number } | null
  readonly cacheScope?: 'tenant' | 'shared'
  readonly registryKernels?: readonly { readonly id: string; readonly name: string; readonly selection: string; readonly usedBy: readonly number[]; readonly why: string }[]
  readonly experiment?: { readonly design: 'sequential'; readonly verdict: string } | {
    readonly design: 'interleaved'; readonly rounds: number; readonly partialRound: boolean; readonly seed: number; readonly test: string; readonly metric: string; readonly device: string; readonly worker: string | null; readonly verdict: string
    readonly aa: { readonly declaredWinner: boolean; readonly comparison: { readonly improvement: number | null; readonly pValue: number | null; readonly verdict: string } | null }
  }
}

export interface RunView {
  readonly id: string
  readonly status: string
  readonly target: { readonly model: { readonly name?: string; readonly paramsB: number; readonly quant?: unknown }; readonly hardware: { readonly name: string }; readonly engine: string; readonly engineVersion: string }
  readonly backend: string
  readonly repetitions: number
  readonly progress: { readonly total: number }
  readonly registryNotes?: readonly string[]
  readonly summary: RunSummaryView | null
}

export function runRows<S extends RunSummaryView>(run: RunView & { readonly summary: S | null }, capacityText: (c: NonNullable<S['capacity']>) => string): [string, unknown][] {
  const s: Partial<S> = run.summary ?? {}
  const proxy = s.proxy ? `PROXY: ${s.proxy.on}, standing in for ${s.proxy.of}` : undefined
  const rows: [string, unknown][] = [
    ['id', run.id],
    ['status', run.status],
    ['target', `${run.target.model.name ?? `${run.target.model.paramsB}B`}${run.target.model.quant ? ` ${run.target.model.quant}` : ''} on ${run.target.hardware.name}, engine ${run.target.engine} ${run.target.engineVersion}`],
    ['backend', run.backend],
    [s.simulated ? 'simulated on' : 'measured on', (s.devices ?? []).join('; ')],
  ]
  if (proxy) rows.push(['numbers', `${proxy} (not measured on the target engine or hardware)`])
  if (s.heldAtDefault) rows.push(['held at default', `${Object.entries(s.heldAtDefault).map(([d, v]) => `${d}=${v}`).join(', ')} (the backend cannot exercise them: not searched)`])
  const o = s.objectives
  if (o) {
    rows.push(['objectives', `${o.slo.length ? describeSlo(o.slo) : 'none stated'}; ${parseObjective(o.objective).direction === 'min' ? 'minimise' : 'maximise'} ${o.objective}`])
    if (o.note) rows.push(['objectives note', o.note])
    else {
      if (o.decision?.defaultsFeasible === false) rows.push(['defaults', 'miss the objectives: the winner must meet them'])
      // Evidence, not the verdict: the run's one verdict (below) weighs it with the design's.
      rows.push(['objectives alone', o.decision?.reason ?? 'no decision stored'])
      rows.push(['Pareto front', `${o.paretoAxes.throughput} against ${o.paretoAxes.latency}: ${o.pareto.map((i: number) => `#${i}`).join(', ') || 'none'}`])
    }
  }
  // A bench serve / bench capacity run: its combinations are loads, and a capacity search's result.
  if (s.bench) rows.push(['measured by', s.bench.note])
  if (s.capacity) rows.push(['capacity', capacityText(s.capacity)])
  if (s.notMeasured?.length) rows.push(['not measured', `${s.notMeasured.join(', ')} (the backend does not exercise them: not part of the winner)`])
  rows.push(['repetitions', run.repetitions], ['combos', run.progress.total])
  // The run's one verdict (the tuner's runVerdict, as the dashboard shows it): a winner only when it names one.
  const v = s.verdict
  if (v) {
    rows.push(['verdict', v.headline])
    for (const f of v.figures) rows.push(['figure', `${f.label}: ${f.text}`])
    for (const r of v.reasons) rows.push(['why', r])
  }
  const combo = s.winner ? `${JSON.stringify(s.winner.combo)}${proxy ? ` [${proxy}]` : ''}` : JSON.stringify(null)
  rows.push(['winner', !v || v.index === s.winner?.index ? combo : 'none: the defaults stay'])
  if (v && v.index === null && s.winner && s.winner.index !== s.baseline?.index) rows.push(['not applied', `#${s.winner.index} ${combo} (kerneltune run apply --force applies it anyway)`])
  const same = Object.entries(s.winner?.notToldApart ?? {}) as [string, string[]][]
  if (same.length) rows.push(['not told apart', same.map(([d, vs]) => `${d}=${s.winner?.combo[d]} ran the same work as ${vs.join(', ')}`).join('; ')])
  rows.push(['simulated', s.simulated ?? ''])
  if (proxy) rows.push(['proxy', 'yes'])
  if (s.cacheScope === 'shared') rows.push(['cache', 'shared across tenants (operator opt-in): cached results may come from other tenants\' runs'])
  for (const k of s.registryKernels ?? []) rows.push(['registry kernel', `${k.name} (${k.id}) ${k.selection}${k.usedBy.length ? `, used by combos ${k.usedBy.join(', ')}` : ''}: ${k.why}`])
  for (const n of run.registryNotes ?? []) rows.push(['note', n])
  const x = s.experiment
  if (x?.design === 'interleaved') {
    rows.push(['design', `interleaved, ${x.rounds} rounds${x.partialRound ? ' (the last one partial)' : ''}, seed ${x.seed}, ${x.test} test on ${x.metric}, every round on ${x.device}${x.worker ? ` by worker ${x.worker}` : ''}`])
    const aa = x.aa?.comparison
    // What the A/A arm shows, from the verdict's evidence: its reading, and a false-winner rate only where the rounds can reach p < 0.05.
    rows.push(['A/A check', v?.aa ? v.aa.text : aa ? `${aa.improvement === null ? 'no estimate' : `${(aa.improvement * 100).toFixed(1)}%`}, p=${aa.pValue?.toPrecision(2) ?? 'n/a'}, ${aa.verdict}${x.aa.declaredWinner ? ' (the rule would crown the baseline against itself: noise)' : ''}` : 'not enough rounds'])
    // The design's own sentence only for a summary without the run's verdict (which states it).
    if (!v) rows.push(['verdict', x.verdict])
  }
  return rows
}
