/**
 * The one Server-Sent Events reader of the workspace: OpenAI-compatible servers' token streams,
 * kerneltune's own `/events` routes in the CLI and the dashboard (which reads them with fetch: the
 * browser's EventSource cannot send an Authorization header). Events are `event:` / `data:` / `id:`
 * lines ended by a blank line; `:` lines are comments (heartbeats). Chunks may split anywhere, so
 * the parser buffers. Runtime-neutral: the browser imports it too.
 */

export interface SseEvent {
  /** The `event:` field; `'message'` when there is none. */
  readonly event: string
  /** The `data:` lines joined by line breaks. */
  readonly data: string
  readonly id?: string
}

export interface SseEventParser {
  /** Feeds decoded text; returns every event completed by it (events without data are dropped). */
  push(text: string): SseEvent[]
  /** A final event not followed by a blank line, if any. */
  end(): SseEvent[]
}

export interface SseParser {
  /** Feeds decoded text; returns the `data:` payloads of every event completed by it. */
  push(text: string): string[]
  /** The payload of a final event not followed by a blank line, if any. */
  end(): string[]
}

function take(block: string): SseEvent | undefined {
  let event = 'message'
  let id: string | undefined
  const data: string[] = []
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon === 0) continue
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id') id = value
  }
  return data.length ? { event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) } : undefined
}

export function sseEventParser(): SseEventParser {
  let buffer = ''
  return {
    push(text) {
      buffer += text
      const out: SseEvent[] = []
      let m: RegExpExecArray | null
      const sep = /\r?\n\r?\n/g
      let last = 0
      while ((m = sep.exec(buffer))) {
        const e = take(buffer.slice(last, m.index))
        if (e) out.push(e)
        last = m.index + m[0].length
      }
      buffer = buffer.slice(last)
      return out
    },
    end() {
      const e = take(buffer)
      buffer = ''
      return e ? [e] : []
    },
  }
}

/** The data payloads alone, as a token stream's reader wants them. */
export function sseParser(): SseParser {
  const p = sseEventParser()
  return { push: (text) => p.push(text).map((e) => e.data), end: () => p.end().map((e) => e.data) }
}

/**
 * The events of a response body, in order. Leaving the loop early cancels the body, so the
 * connection is released.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = sseEventParser()
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let done = false
  try {
    for (;;) {
      const chunk = await reader.read()
      done = chunk.done
      yield* done ? [...parser.push(decoder.decode()), ...parser.end()] : parser.push(decoder.decode(chunk.value, { stream: true }))
      if (done) return
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
  }
}
