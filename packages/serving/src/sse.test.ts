import { describe, expect, it } from 'vitest'
import { readSse, sseEventParser, sseParser, type SseEvent } from './sse.ts'

describe('sseParser', () => {
  it('should join events split across chunks at any byte', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: comment\n\ndata: [DONE]\n\n'
    for (let cut = 1; cut < text.length; cut++) {
      const p = sseParser()
      const got = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()]
      expect(got).toEqual(['{"a":1}', '{"b":2}', '[DONE]'])
    }
  })

  it('should return a last event that lacks the blank line at the end', () => {
    const p = sseParser()
    expect(p.push('data: {"x":1}')).toEqual([])
    expect(p.end()).toEqual(['{"x":1}'])
  })
})

describe('sseEventParser', () => {
  it('should keep the event name and id, join data lines and skip comments and data-less events', () => {
    const p = sseEventParser()
    const got = p.push('event: state\nid: 0\ndata: {"a":1}\n\n: heartbeat\n\nevent: ping\n\ndata: one\ndata:two\n\n')
    expect(got).toEqual([{ event: 'state', id: '0', data: '{"a":1}' }, { event: 'message', data: 'one\ntwo' }])
  })
})

describe('readSse', () => {
  const body = (chunks: string[]) => {
    const bytes = new TextEncoder().encode(chunks.join(''))
    // Split inside a multi-byte character too: the decoder must carry it over.
    const cut = bytes.indexOf(0xc3) + 1
    return new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut))
        c.enqueue(bytes.slice(cut))
        c.close()
      },
    })
  }

  it('should yield the events of a body split anywhere, the last one without its blank line too', async () => {
    const got: SseEvent[] = []
    for await (const e of readSse(body(['event: a\ndata: "é"\n\n', 'event: b\r\ndata: 2']))) got.push(e)
    expect(got).toEqual([{ event: 'a', data: '"é"' }, { event: 'b', data: '2' }])
  })

  it('should cancel the body when the reader stops early', async () => {
    let cancelled = false
    const stream = new ReadableStream<Uint8Array>({
      pull(c) { c.enqueue(new TextEncoder().encode('data: 1\n\n')) },
      cancel() { cancelled = true },
    })
    for await (const e of readSse(stream)) if (e.data === '1') break
    expect(cancelled).toBe(true)
  })
})
