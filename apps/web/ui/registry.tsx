/** Registry: the Tier 3 kernel list with its status filter and each entry's audit trail (read-only). */
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, qs } from './api.ts'
import type { RegistryAudit, RegistryList } from './api-types.gen.ts'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'


function Audit({ id }: { id: string }) {
  const q = useQuery({ queryKey: ['audit', id], queryFn: () => api<RegistryAudit>(`/registry/${id}/audit`) })
  if (q.error) return <p className="error">{q.error.message}</p>
  return <ol data-testid="audit">{q.data?.items.map((e) => <li key={e.id}>{e.createdAt.replace('T', ' ').slice(0, 19)}: {e.action} by {e.actor.slice(0, 8)}{e.reason ? ` (${e.reason})` : ''}</li>)}</ol>
}

export function Registry() {
  const [url, setUrl] = useUrl()
  const status = url.get('status') ?? ''
  const [open, setOpen] = useState<string | null>(null)
  const list = useQuery({ queryKey: ['registry', status], queryFn: () => api<RegistryList>('/registry' + qs({ status })) })
  useFirstScreen(list.isFetched)
  return (
    <div>
      <h2>Registry</h2>
      <label htmlFor="r-status">Status</label>
      <select id="r-status" value={status} onChange={(e) => setUrl({ status: e.target.value || undefined })}>
        <option value="">any</option><option value="proposed">proposed</option><option value="approved">approved</option><option value="deprecated">deprecated</option>
      </select>
      {list.error && <p className="error" role="alert">{list.error.message}</p>}
      <table>
        <caption>Tier 3 kernels ({list.data?.items.length ?? 0})</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Family</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Updated</th><th scope="col">Audit trail</th></tr></thead>
        <tbody>
          {list.data?.items.map((e) => (
            <tr key={e.id} data-entry-id={e.id}>
              <td>{e.name}</td><td>{e.kernelFamily}</td><td>{e.provider}</td><td>{e.status}</td><td>{e.updatedAt.slice(0, 10)}</td>
              <td>{open === e.id ? <Audit id={e.id} /> : <button onClick={() => setOpen(e.id)} aria-label={`Show the audit trail of ${e.name}`}>Show</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
