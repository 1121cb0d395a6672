/**
 * Run detail: live progress over SSE, the combinations table with the statistics against the
 * baseline, the Pareto plot, the winner's engine command line, and Apply to a deployment.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { api } from './api.ts'
import { ParetoPlot, type Point } from './pareto.tsx'
import { streamEvents } from './sse.ts'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'

interface Summary { winner?: { index: number; combo: Record<string, string>; value: number; improvement: number }; pareto?: Array<{ index: number }>; gate?: { status: string; reasons: string[] } }
interface Run { id: string; status: string; mode: string; backend: string; progress: { done: number; total: number }; summary: Summary | null; error: string | null; target: { engine: string; engineVersion: string } }
interface Comparison { trimmedMean?: number; welch?: { pValue: number }; interval?: { low: number; high: number }; cohensD?: number; verdict?: string }
interface Combo { index: number; combo: Record<string, string>; status: string; isBaseline: boolean; metrics: { throughputTps?: number; latencyP95Ms: number } | null; comparison: Comparison | null; gate: { passed: boolean; reasons: string[] } | null }
interface Applied { translation: { ok: boolean; argv?: string[]; reason?: string }; deploymentId?: string | null }

const TERMINAL = ['succeeded', 'failed', 'cancelled']
const n = (v: number | undefined, d = 2) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(d))
const short = (c: Record<string, string>) => Object.values(c).join(' · ')
const shellQuote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)

export function RunDetail() {
  const [url, setUrl] = useUrl()
  const id = url.get('run') ?? ''
  const client = useQueryClient()
  const [live, setLive] = useState<{ done: number; total: number; best: number | null; seen: string[]; streamed: string[]; partialAt: number | null }>({ done: 0, total: 0, best: null, seen: [], streamed: [], partialAt: null })
  const [selected, setSelected] = useState<number | null>(null)
  const [target, setTarget] = useState(url.get('deployment') ?? '')
  const run = useQuery({ queryKey: ['run', id], queryFn: () => api<Run>(`/runs/${id}`), enabled: !!id })
  const done = run.data ? TERMINAL.includes(run.data.status) : false
  const combos = useQuery({ queryKey: ['combos', id, done], queryFn: () => api<{ items: Combo[] }>(`/runs/${id}/combos`), enabled: !!id && done })
  useFirstScreen(run.isFetched && (!done || combos.isFetched))

  useEffect(() => {
    if (!id) return
    setLive({ done: 0, total: 0, best: null, seen: [], streamed: [], partialAt: null })
    return streamEvents(`/runs/${id}/events`, (type, data) => {
      const e = data as { done?: number; total?: number; progress?: { done: number; total: number }; metrics?: { throughputTps?: number } | null }
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
      if (type === 'run.finished') void client.invalidateQueries({ queryKey: ['run', id] })
    })
  }, [id, client])

  const frontier = useMemo(() => new Set((run.data?.summary?.pareto ?? []).map((p) => p.index)), [run.data])
  const points: Point[] = useMemo(() => (combos.data?.items ?? [])
    .filter((c) => c.metrics?.throughputTps !== undefined)
    .map((c) => ({ index: c.index, throughput: c.metrics!.throughputTps!, p95: c.metrics!.latencyP95Ms, frontier: frontier.has(c.index), label: `#${c.index} ${short(c.combo)}` })), [combos.data, frontier])
  const onSelect = useCallback((i: number) => setSelected(i), [])

  const command = useQuery({ queryKey: ['command', id], queryFn: () => api<Applied>(`/runs/${id}/apply`, { method: 'POST', body: {} }), enabled: done && run.data?.status === 'succeeded' })
  const apply = useMutation({
    mutationFn: () => api<Applied>(`/runs/${id}/apply`, { method: 'POST', body: { deploymentId: target.trim(), force: true } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['combo', target.trim()] }),
  })

  if (!id) return <div><h2>Run detail</h2><p>Pick a run in <a href="?tab=history" onClick={(e) => { e.preventDefault(); setUrl({ tab: 'history' }) }}>Run History</a>.</p></div>
  if (run.error) return <div><h2>Run detail</h2><p className="error" role="alert">{run.error.message}</p></div>
  const r = run.data
  const progress = done && r ? r.progress : live
  const winner = r?.summary?.winner
  const sel = combos.data?.items.find((c) => c.index === selected)
  return (
    <div>
      <h2>Run {id.slice(0, 8)}</h2>
      <p>Status: <strong data-testid="run-status">{r?.status ?? '…'}</strong> · {r?.target.engine} {r?.target.engineVersion} · {r?.mode} · backend {r?.backend}</p>
      <label htmlFor="run-progress">Combinations measured: <span data-testid="run-progress-text">{progress.done} of {progress.total}</span></label>
      <progress id="run-progress" data-sse={live.seen.join(' ')} data-streamed={live.streamed.join(' ')} data-partial-at={live.partialAt ?? undefined} max={progress.total || 1} value={progress.done} />
      <p>Best so far: <span data-testid="best">{live.best !== null ? `${n(live.best, 1)} tokens/s` : winner ? `${n(winner.value, 1)} tokens/s (the winner)` : '—'}</span></p>
      {r?.error && <p className="error">{r.error}</p>}
      {winner && (
        <section className="card" aria-label="Winner">
          <h3>Winner: #{winner.index} ({n(winner.improvement * 100, 1)}% over the baseline){r?.summary?.gate ? ` · gate ${r.summary.gate.status}` : ''}</h3>
          <pre data-testid="command">{command.data?.translation.ok ? command.data.translation.argv!.map(shellQuote).join(' ') : command.data?.translation.reason ?? '…'}</pre>
          <form onSubmit={(e) => { e.preventDefault(); if (target.trim()) apply.mutate() }}>
            <label htmlFor="apply-deployment">Deployment to apply it to</label>
            <input id="apply-deployment" value={target} onChange={(e) => setTarget(e.target.value)} />
            <button type="submit" disabled={!target.trim() || apply.isPending}>Apply</button>
          </form>
          {apply.isSuccess && <p role="status" data-testid="applied">Applied to {target.trim()}.</p>}
          {apply.error && <p className="error" role="alert">{apply.error.message}</p>}
        </section>
      )}
      {done && <ParetoPlot points={points} onSelect={onSelect} />}
      {sel && <p role="status" data-testid="selected">Selected #{sel.index}: {short(sel.combo)}</p>}
      {combos.data && (
        <table>
          <caption>Combinations (statistics against the baseline; the interval is the 95% interval of the difference)</caption>
          <thead><tr><th scope="col">#</th><th scope="col">Combination</th><th scope="col">Status</th><th scope="col">Trimmed mean</th><th scope="col">95% interval</th><th scope="col">p-value</th><th scope="col">Cohen's d</th><th scope="col">Tie</th><th scope="col">Gate</th></tr></thead>
          <tbody>
            {combos.data.items.map((c) => (
              <tr key={c.index} data-combo-index={c.index} aria-selected={c.index === selected}>
                <td>{c.index}{c.isBaseline ? ' (baseline)' : ''}</td><td>{short(c.combo)}</td><td>{c.status}</td>
                <td>{n(c.comparison?.trimmedMean ?? c.metrics?.throughputTps, 1)}</td>
                <td>{c.comparison?.interval ? `[${n(c.comparison.interval.low)}, ${n(c.comparison.interval.high)}]` : '—'}</td>
                <td>{n(c.comparison?.welch?.pValue, 3)}</td><td>{n(c.comparison?.cohensD, 2)}</td>
                <td>{c.comparison ? (c.comparison.verdict === 'indistinguishable' ? 'tie' : c.comparison.verdict) : '—'}</td>
                <td>{c.gate ? (c.gate.passed ? 'pass' : 'fail') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
