/**
 * Server-sent events as OpenAI-compatible servers stream them: `data: {json}` events separated by
 * a blank line, ending with `data: [DONE]`. Chunks may split anywhere, so the parser buffers.
 */

export interface SseParser {
  /** Feeds decoded text; returns the `data:` payloads of every event completed by it. */
  push(text: string): string[]
  /** The payload of a final event not followed by a blank line, if any. */
  end(): string[]
}

export function sseParser(): SseParser {
  let buffer = ''
  const take = (block: string): string | undefined => {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
    return data.length ? data.join('\n') : undefined
  }
  return {
    push(text) {
      buffer += text
      const out: string[] = []
      let m: RegExpExecArray | null
      const sep = /\r?\n\r?\n/g
      let last = 0
      while ((m = sep.exec(buffer))) {
        const d = take(buffer.slice(last, m.index))
        if (d !== undefined) out.push(d)
        last = m.index + m[0].length
      }
      buffer = buffer.slice(last)
      return out
    },
    end() {
      const d = take(buffer)
      buffer = ''
      return d === undefined ? [] : [d]
    },
  }
}
