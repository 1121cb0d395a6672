/** Run History: filters in the URL, 20 runs a page, each row carrying its run id (data-run-id). */
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { api, qs } from './api.ts'
import type { ApiResponses, RunBrief } from './api-types.gen.ts'
import { useOptions, withCurrent } from './presets.ts'
import { ProvenanceBadge } from './provenance.tsx'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'

/** view=brief: the server answers with brief rows only. */
type BriefList = Omit<ApiResponses['GET /runs'], 'items'> & { items: RunBrief[] }

const PAGE = 20

/** A day (YYYY-MM-DD, read as UTC like the Created column) as the server's since/until bounds. */
function dayRange(day: string): { since?: string; until?: string } {
  const start = Date.parse(`${day}T00:00:00Z`)
  if (!day || Number.isNaN(start)) return {}
  return { since: day, until: new Date(start + 86_400_000).toISOString().slice(0, 10) }
}
const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled']

export function History() {
  const [url, setUrl] = useUrl()
  const f = { engine: url.get('engine') ?? '', status: url.get('status') ?? '', mode: url.get('mode') ?? '', date: url.get('date') ?? '' }
  const page = Math.max(0, Number(url.get('page') ?? 0) || 0)
  const runs = useQuery({
    queryKey: ['runs', f.engine, f.status, f.mode, f.date, page],
    queryFn: () => api<BriefList>('/runs' + qs({ engine: f.engine, status: f.status, mode: f.mode, ...dayRange(f.date), limit: PAGE, offset: page * PAGE, view: 'brief' })),
    placeholderData: keepPreviousData,
  })
  const options = useOptions()
  useFirstScreen(runs.isFetched)
  const pages = Math.max(1, Math.ceil((runs.data?.total ?? 0) / PAGE))
  const items = runs.data?.items ?? []
  const filter = (key: string, label: string, options: readonly string[]) => (
    <div><label htmlFor={`f-${key}`}>{label}</label>
      <select id={`f-${key}`} value={f[key as keyof typeof f]} onChange={(e) => setUrl({ [key]: e.target.value || undefined, page: undefined })}>
        <option value="">any</option>{options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select></div>
  )
  return (
    <div>
      <h2>Run History</h2>
      <div className="grid" role="search" aria-label="Filters">
        {filter('engine', 'Engine', withCurrent(options.data?.engines.map((e) => e.name) ?? [], f.engine))}
        {filter('status', 'Status', STATUSES)}
        {filter('mode', 'Mode', withCurrent(options.data?.modes ?? [], f.mode))}
        <div><label htmlFor="f-date">Day (UTC)</label><input id="f-date" type="date" value={f.date} onChange={(e) => setUrl({ date: e.target.value || undefined, page: undefined })} /></div>
      </div>
      {runs.error && <p className="error" role="alert">{runs.error.message}</p>}
      <p data-testid="history-total">{runs.data ? `${runs.data.total} runs` : 'Loading…'}</p>
      <table>
        <caption>Runs, newest first</caption>
        <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Engine</th><th scope="col">Mode</th><th scope="col">Model</th><th scope="col">Hardware</th><th scope="col">Progress</th><th scope="col">Created</th></tr></thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id} data-run-id={r.id}>
              <td><a href={`?tab=run&run=${r.id}`} onClick={(e) => { e.preventDefault(); setUrl({ tab: 'run', run: r.id }) }}>{r.id.slice(0, 8)}</a></td>
              <td>{r.interrupted ? <span title={`its measuring process stopped: kerneltune run resume ${r.id}`}>interrupted (resumable)</span> : r.status}</td><td>{r.target.engine} {r.target.engineVersion}</td><td>{r.mode}</td>
              <td>{r.target.model.name ?? ''}</td><td>{r.target.hardware.name} <ProvenanceBadge by={r.measuredBy} engine={`${r.target.engine} ${r.target.engineVersion}`} hardware={r.target.hardware.name} /></td><td>{r.progress.done}/{r.progress.total}</td><td>{r.createdAt.replace('T', ' ').slice(0, 19)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label="Pagination">
        <button disabled={page === 0} onClick={() => setUrl({ page: page > 1 ? String(page - 1) : undefined })}>Previous</button>
        <span data-testid="page"> page {page + 1} of {pages} </span>
        <button disabled={page + 1 >= pages} onClick={() => setUrl({ page: String(page + 1) })}>Next</button>
      </nav>
    </div>
  )
}
