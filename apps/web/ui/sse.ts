/**
 * Server-Sent Events over fetch. The browser's EventSource cannot send an Authorization header,
 * and the token must not travel in a URL (it would land in logs), so the stream is read with
 * fetch and split into events by the workspace's one SSE reader.
 */
import { readSse } from '@kerneltune/serving'
import { API, token } from './api.ts'

export function streamEvents(path: string, onEvent: (type: string, data: unknown) => void): () => void {
  const ctrl = new AbortController()
  void (async () => {
    const res = await fetch(API + path, { headers: { authorization: `Bearer ${token.get() ?? ''}`, accept: 'text/event-stream' }, signal: ctrl.signal })
    if (!res.ok || !res.body) return
    for await (const e of readSse(res.body)) onEvent(e.event, JSON.parse(e.data))
  })().catch(() => undefined)
  return () => ctrl.abort()
}
