/**
 * Run detail: live progress over SSE, the run's one verdict (verdict.tsx: the summary's, from the
 * objectives, the design or the gate) with its figures in their units and the command line of the
 * combination it speaks of, Apply to a deployment, the measurement design with its A/A check
 * (experiment.tsx), the combinations table with the statistics against the baseline, and the
 * Pareto plot. A simulated or proxy run says so at the top, and a best candidate the verdict does
 * not choose is called that, not a winner (issue 23 item 13, issue 34 item 11). The roofline
 * bounds of the model on its hardware sit beside the measured baseline, labelled a prediction.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { api } from './api.ts'
import type { ApplyResult, RunCombos, RunDetail } from './api-types.gen.ts'
import { ExperimentView } from './experiment.tsx'
import { bestText, intervalCell, valueCell } from './figures.ts'
import { ObjectivesView } from './objectives.tsx'
import { ParetoPlot, type PlotNoise, type Point } from './pareto.tsx'
import { ProvenanceBanner } from './provenance.tsx'
import { RooflineView } from './roofline.tsx'
import { streamEvents } from './sse.ts'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'
import { VerdictView } from './verdict.tsx'

const TERMINAL = ['succeeded', 'failed', 'cancelled']
const n = (v: number | null | undefined, d = 2) => (v === undefined || v === null || !Number.isFinite(v) ? '—' : v.toFixed(d))
const short = (c: Record<string, string>) => Object.values(c).join(' · ')
const shellQuote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)
/**
 * A translation as the engine takes it: its command line, and (ONNX Runtime's, which has none: the
 * settings are session options) its environment and files, each file under its name.
 */
const translated = (t: { argv: string[]; env: Record<string, string>; files: Record<string, string> }) => [
  ...(t.argv.length ? [t.argv.map(shellQuote).join(' ')] : []),
  ...Object.entries(t.env).map(([k, v]) => `${k}=${shellQuote(v)}`),
  ...Object.entries(t.files).map(([name, text]) => `# ${name}\n${text.trimEnd()}`),
].join('\n')

export function RunDetail() {
  const [url, setUrl] = useUrl()
  const id = url.get('run') ?? ''
  const client = useQueryClient()
  const [live, setLive] = useState<{ done: number; total: number; best: number | null; seen: string[]; streamed: string[]; partialAt: number | null; simulated: boolean }>({ done: 0, total: 0, best: null, seen: [], streamed: [], partialAt: null, simulated: false })
  const [selected, setSelected] = useState<number | null>(null)
  const [target, setTarget] = useState(url.get('deployment') ?? '')
  const run = useQuery({ queryKey: ['run', id], queryFn: () => api<RunDetail>(`/runs/${id}`), enabled: !!id })
  const done = run.data ? TERMINAL.includes(run.data.status) : false
  const combos = useQuery({ queryKey: ['combos', id, done], queryFn: () => api<RunCombos>(`/runs/${id}/combos`), enabled: !!id && done })
  useFirstScreen(run.isFetched && (!done || combos.isFetched))

  useEffect(() => {
    if (!id) return
    setLive({ done: 0, total: 0, best: null, seen: [], streamed: [], partialAt: null, simulated: false })
    return streamEvents(`/runs/${id}/events`, (type, data) => {
      const e = data as { done?: number; total?: number; progress?: { done: number; total: number }; metrics?: { throughputTps?: number } | null; simulated?: boolean }
      // Which event types arrived: the page (and its tests) can tell a streamed finish from a fetched one.
      setLive((s) => (s.seen.includes(type) ? s : { ...s, seen: [...s.seen, type] }))
      if (type === 'state' && e.progress) setLive((s) => ({ ...s, ...e.progress }))
      // Each streamed progress step is kept ("done/total"): a step short of the total is proof the
      // page followed the run while it ran, not only its end.
      if (type === 'progress') setLive((s) => ({ ...s, done: e.done ?? s.done, total: e.total ?? s.total, streamed: [...s.streamed, `${e.done}/${e.total}`].slice(-50),
        // When (epoch ms) the first step short of the total arrived: compared with the run's end, it
        // tells steps that arrived while the run ran from a backlog flushed at its end.
        partialAt: s.partialAt ?? ((e.done ?? 0) < (e.total ?? 0) ? Date.now() : null) }))
      if (type === 'combo.measured' && e.metrics?.throughputTps !== undefined) setLive((s) => ({ ...s, best: Math.max(s.best ?? 0, e.metrics!.throughputTps!) }))
      // Before the summary exists, the streamed results say whether they are predictions.
      if (type === 'combo.measured' && e.simulated) setLive((s) => (s.simulated ? s : { ...s, simulated: true }))
      if (type === 'run.finished') void client.invalidateQueries({ queryKey: ['run', id] })
    })
  }, [id, client])

  const frontier = useMemo(() => new Set((run.data?.summary?.pareto ?? []).map((p) => p.index)), [run.data])
  const points: Point[] = useMemo(() => (combos.data?.items ?? [])
    .filter((c) => c.metrics?.throughputTps !== undefined)
    .map((c) => ({ index: c.index, throughput: c.metrics!.throughputTps!, p95: c.metrics!.latencyP95Ms, frontier: frontier.has(c.index), label: `#${c.index} ${short(c.combo)}` })), [combos.data, frontier])
  const onSelect = useCallback((i: number) => setSelected(i), [])
  const comboById = useMemo(() => new Map((combos.data?.items ?? []).map((c) => [c.index, c.combo])), [combos.data])
  // The baseline's noise, centred on its plotted values (throughput, p95 latency).
  const noise: PlotNoise = useMemo(() => {
    const s = run.data?.summary?.noise
    const m = combos.data?.items.find((c) => c.isBaseline)?.metrics
    return {
      throughput: s?.throughputTps && m?.throughputTps !== undefined ? { centre: m.throughputTps, relHalfWidth: s.throughputTps.relHalfWidth, n: s.throughputTps.n } : null,
      p95: s?.latencyMs && m ? { centre: m.latencyP95Ms, relHalfWidth: s.latencyMs.relHalfWidth, n: s.latencyMs.n } : null,
    }
  }, [run.data, combos.data])

  const summary = run.data?.summary ?? null
  const winner = summary?.winner ?? null
  const verdict = summary?.verdict ?? null
  // The combination whose command line the card shows: the summary's winner, applied only when the
  // verdict names it; otherwise (the defaults stay) applying it is an override.
  const force = verdict !== null && !(verdict.kind === 'winner' && verdict.index === winner?.index)
  // Without a deployment, apply only translates; force lets it show the command line of a
  // combination the gate rejected (marked "not applied") instead of a refusal.
  const command = useQuery({ queryKey: ['command', id, force], queryFn: () => api<ApplyResult>(`/runs/${id}/apply`, { method: 'POST', body: force ? { force: true } : {} }), enabled: done && run.data?.status === 'succeeded' && verdict !== null && winner !== null })
  const apply = useMutation({
    mutationFn: () => api<ApplyResult>(`/runs/${id}/apply`, { method: 'POST', body: { deploymentId: target.trim(), ...(force ? { force: true } : {}) } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['combo', target.trim()] }),
  })

  if (!id) return <div><h2>Run detail</h2><p>Pick a run in <a href="?tab=history" onClick={(e) => { e.preventDefault(); setUrl({ tab: 'history' }) }}>Run History</a>.</p></div>
  if (run.error) return <div><h2>Run detail</h2><p className="error" role="alert">{run.error.message}</p></div>
  const r = run.data
  const progress = done && r ? r.progress : live
  const simulated = summary ? summary.simulated === true : live.simulated
  const metric = summary?.metric ?? 'throughputTps'
  const sel = combos.data?.items.find((c) => c.index === selected)
  return (
    <div>
      <h2>Run {id.slice(0, 8)}</h2>
      <p>Status: <strong data-testid="run-status">{r?.status ?? '…'}</strong> · {r?.target.engine} {r?.target.engineVersion} · {r?.target.hardware.name} · {r?.mode} · backend {r?.backend}</p>
      <ProvenanceBanner simulated={simulated} proxy={summary?.proxy ?? null} devices={summary?.devices ?? []} hardware={r?.target.hardware.name} />
      <label htmlFor="run-progress">Combinations {simulated ? 'predicted' : 'measured'}: <span data-testid="run-progress-text">{progress.done} of {progress.total}</span></label>
      <progress id="run-progress" data-sse={live.seen.join(' ')} data-streamed={live.streamed.join(' ')} data-partial-at={live.partialAt ?? undefined} max={progress.total || 1} value={progress.done} />
      <p>Best so far: <span data-testid="best">{bestText(live.best, verdict, simulated)}</span></p>
      {r?.error && <p className="error">{r.error}</p>}
      {verdict && (
        <section className={`card verdict-${verdict.kind}`} aria-label="Result" data-verdict={verdict.kind}>
          <VerdictView v={verdict} />
          {summary?.gate && <p>Quality gate ({summary.gate.method}): {summary.gate.status}.</p>}
          {winner && <>
            <p className="hint">{force ? `The command line of #${winner.index} (not applied):` : 'Its engine command line:'}</p>
            <pre data-testid="command">{command.data?.translation.ok ? translated(command.data.translation) : (command.data && !command.data.translation.ok ? command.data.translation.reason : undefined) ?? command.error?.message ?? '…'}</pre>
            <form onSubmit={(e) => { e.preventDefault(); if (target.trim()) apply.mutate() }}>
              <label htmlFor="apply-deployment">Deployment to apply it to</label>
              <input id="apply-deployment" value={target} onChange={(e) => setTarget(e.target.value)} />
              <button type="submit" disabled={!target.trim() || apply.isPending}>{force ? `Apply #${winner.index} anyway (overrides the verdict)` : 'Apply'}</button>
            </form>
            {apply.isSuccess && <p role="status" data-testid="applied">Applied to {target.trim()}.</p>}
            {apply.error && <p className="error" role="alert">{apply.error.message}</p>}
          </>}
        </section>
      )}
      {/* Before the objectives: a false A/A winner says the run's numbers are this machine's noise. */}
      {summary && <ExperimentView e={summary.experiment} combos={comboById} verdict={verdict} />}
      {summary?.objectives && <ObjectivesView o={summary.objectives} />}
      {done && r?.roofline && <RooflineView p={r.roofline} baseline={combos.data?.items.find((c) => c.isBaseline)} simulated={simulated} />}
      {done && <ParetoPlot points={points} noise={noise} simulated={simulated} onSelect={onSelect} />}
      {sel && <p role="status" data-testid="selected">Selected #{sel.index}: {short(sel.combo)}</p>}
      {combos.data && (
        <table>
          <caption>{simulated ? 'Combinations (predicted: no interval, p-value, effect size or tie, which need measurements)' : 'Combinations (statistics against the baseline; the 95% interval is of the difference in the metric\'s unit, or of the ratio to the baseline in percent for rounds paired by the interleaved design)'}</caption>
          <thead><tr><th scope="col">#</th><th scope="col">Combination</th><th scope="col">Status</th><th scope="col">Value</th><th scope="col">95% interval</th><th scope="col">p-value</th><th scope="col">Cohen's d</th><th scope="col">Tie</th><th scope="col">Gate</th></tr></thead>
          <tbody>
            {combos.data.items.map((c) => (
              <tr key={c.index} data-combo-index={c.index} aria-selected={c.index === selected}>
                <td>{c.index}{c.isBaseline ? ' (baseline)' : ''}</td><td>{short(c.combo)}</td><td>{simulated && c.status === 'measured' ? 'predicted' : c.status}</td>
                <td>{valueCell(c, metric)}</td>
                {/* A prediction repeated has no spread: its "interval", p-value and "better" would read as a measured difference. */}
                {simulated ? <td colSpan={4} className="hint">n/a: predicted</td> : <>
                  <td>{intervalCell(c, metric)}</td>
                  <td>{n(c.comparison?.welch?.pValue ?? (c.comparison as { pValue?: number } | null)?.pValue, 3)}</td><td>{n(c.comparison?.cohensD, 2)}</td>
                  <td>{c.comparison ? (c.comparison.verdict === 'indistinguishable' ? 'tie' : c.comparison.verdict) : '—'}</td>
                </>}
                <td>{c.gate ? (c.gate.passed ? 'pass' : 'fail') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
