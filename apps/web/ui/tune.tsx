/** Tune session: start one from a run, then its best-so-far curve, budget burn, trials, cancel and resume. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { api } from './api.ts'
import type { ApiResponses, TuneSessionDetail, TuneTrial } from './api-types.gen.ts'
import { streamEvents } from './sse.ts'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'


function Curve({ trials }: { trials: TuneTrial[] }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    let cancelled = false
    let drawn: SVGElement | HTMLElement | undefined
    // Plot (with d3) loads on first use, so that the landing page's bundle stays small.
    void import('@observablehq/plot').then((Plot) => {
    if (cancelled) return
    let best = -Infinity
    const data = trials.filter((t) => t.value !== null).map((t) => ({ trial: t.index + 1, best: (best = Math.max(best, t.value!)), value: t.value! }))
    const svg = Plot.plot({
      width: 560, height: 280, grid: true, ariaLabel: 'Best so far over trials',
      x: { label: 'trial' }, y: { label: 'objective' },
      marks: [Plot.dot(data, { x: 'trial', y: 'value', stroke: '#777', className: 'trial-dots' }), Plot.line(data, { x: 'trial', y: 'best', stroke: '#0b4f9c', curve: 'step-after', className: 'best-line' })],
    })
    // Plot labels its mark groups with aria-label; a label needs a role to be allowed (axe: aria-prohibited-attr).
    svg.querySelectorAll('g[aria-label]:not([role])').forEach((g) => g.setAttribute('role', 'group'))
    ref.current?.replaceChildren(svg)
    drawn = svg
    })
    return () => { cancelled = true; drawn?.remove() }
  }, [trials])
  return <div ref={ref} data-testid="tune-curve" />
}

export function Tune() {
  const [url, setUrl] = useUrl()
  const id = url.get('session') ?? ''
  const client = useQueryClient()
  const [runId, setRunId] = useState(url.get('run') ?? '')
  const [trials, setTrials] = useState('12')
  const session = useQuery({ queryKey: ['tune', id], queryFn: () => api<TuneSessionDetail>(`/tune/${id}`), enabled: !!id })
  useFirstScreen(!id || session.isFetched)
  useEffect(() => {
    if (!id) return
    return streamEvents(`/tune/${id}/events`, (type) => {
      if (type === 'trial' || type === 'tune.finished') void client.invalidateQueries({ queryKey: ['tune', id] })
    })
  }, [id, client, session.data?.status])
  const start = useMutation({
    mutationFn: () => api<ApiResponses['POST /tune']>('/tune', { method: 'POST', body: { runId: runId.trim(), budget: { trials: Number(trials) } } }),
    onSuccess: (s) => setUrl({ session: s.id }),
  })
  const act = useMutation({
    mutationFn: (what: 'cancel' | 'resume') => api(`/tune/${id}/${what}`, { method: 'POST' }),
    onSettled: () => client.invalidateQueries({ queryKey: ['tune', id] }),
  })
  const s = session.data
  const budget = s?.budget.trials ? `${s.trialsDone} of ${s.budget.trials} trials` : `${s?.trialsDone ?? 0} trials`
  return (
    <div>
      <h2>Tune session</h2>
      <form className="card" onSubmit={(e) => { e.preventDefault(); start.mutate() }} aria-label="New tune session">
        <div className="grid">
          <div><label htmlFor="tune-run">Tier 1 run id</label><input id="tune-run" value={runId} onChange={(e) => setRunId(e.target.value)} /></div>
          <div><label htmlFor="tune-trials">Trials</label><input id="tune-trials" inputMode="numeric" value={trials} onChange={(e) => setTrials(e.target.value)} /></div>
        </div>
        <button type="submit" disabled={!runId.trim() || !/^\d+$/.test(trials) || start.isPending}>Start tuning</button>
        {start.error && <p className="error" role="alert">{start.error.message}</p>}
      </form>
      {session.error && <p className="error" role="alert">{session.error.message}</p>}
      {s && (
        <section aria-label="Session">
          <p>Session {s.id.slice(0, 8)} · status <strong data-testid="tune-status">{s.status}</strong> · strategy {s.strategy} · best {s.best ? s.best.value.toFixed(2) : '—'}</p>
          <label htmlFor="burn">Budget burn: <span data-testid="burn">{budget}</span>{s.budget.minutes ? `, ${(s.elapsedMs / 60000).toFixed(1)} of ${s.budget.minutes} min` : ''}</label>
          <progress id="burn" max={s.budget.trials ?? 1} value={s.budget.trials ? s.trialsDone : 0} />
          <div>
            <button onClick={() => act.mutate('cancel')} disabled={!['running', 'paused'].includes(s.status)}>Cancel</button>
            <button onClick={() => act.mutate('resume')} disabled={!['paused', 'failed'].includes(s.status)}>Resume</button>
          </div>
          {act.error && <p className="error" role="alert">{act.error.message}</p>}
          <Curve trials={s.trials} />
          <table>
            <caption>Trials</caption>
            <thead><tr><th scope="col">Trial</th><th scope="col">Outcome</th><th scope="col">Value</th><th scope="col">Configuration</th></tr></thead>
            <tbody>{s.trials.map((t) => <tr key={t.index} data-trial={t.index}><td>{t.index + 1}</td><td>{t.outcome}</td><td>{t.value?.toFixed(2) ?? '—'}</td><td>{Object.values(t.config).join(' · ')}</td></tr>)}</tbody>
          </table>
        </section>
      )}
    </div>
  )
}
