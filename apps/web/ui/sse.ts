/**
 * Server-Sent Events over fetch. The browser's EventSource cannot send an Authorization header,
 * and the token must not travel in a URL (it would land in logs), so the stream is read with
 * fetch and split into events here (the format is lines of `event:` / `data:`, blank-line ended).
 */
import { API, token } from './api.ts'

export function streamEvents(path: string, onEvent: (type: string, data: unknown) => void): () => void {
  const ctrl = new AbortController()
  void (async () => {
    const res = await fetch(API + path, { headers: { authorization: `Bearer ${token.get() ?? ''}`, accept: 'text/event-stream' }, signal: ctrl.signal })
    if (!res.ok || !res.body) return
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    let buf = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buf += value
      let cut: number
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut)
        buf = buf.slice(cut + 2)
        let type = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) type = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
        }
        if (data.length) onEvent(type, JSON.parse(data.join('\n')))
      }
    }
  })().catch(() => undefined)
  return () => ctrl.abort()
}
