/**
 * Times a response as it passes through: the gateway hands every upstream chunk to the observer
 * (the bytes themselves go to the client untouched) and reads TTFT, the gaps between content
 * chunks and the token count the server reports, with the definitions of the load generator
 * (@kerneltune/serving request.ts): a token arrives with an SSE event whose choice carries text or
 * is not the closing one. A non-streamed answer arrives at once; its TTFT and TPOT come from
 * the server's own per-request `timings` when it sends them (the decode time is the end of the request).
 */
import { sseParser } from '@kerneltune/serving'
import type { Observation } from './reward.ts'

type Chunk = {
  choices?: { text?: string; delta?: { content?: string | null }; finish_reason?: string | null }[]
  usage?: { completion_tokens?: number } | null
  timings?: { predicted_n?: number; predicted_ms?: number }
  error?: unknown
}

export interface ResponseObserver {
  /** A chunk of the response body arrived now (performance.now() clock). */
  chunk(bytes: Uint8Array, atMs: number): void
  /** The response ended; ok says the upstream finished it normally with a 2xx status. */
  end(atMs: number, ok: boolean): Observation
}

export function observeResponse(o: { startMs: number; streamed: boolean }): ResponseObserver {
  const parser = sseParser()
  const decoder = new TextDecoder()
  let ttft: number | undefined
  let last = 0
  const gaps: number[] = []
  let chunks = 0
  let tokens: number | undefined
  let timings: Chunk['timings']
  let serverError = false
  let body = ''
  const onEvent = (data: string, at: number) => {
    if (data.trim() === '[DONE]') return
    let c: Chunk
    try {
      c = JSON.parse(data) as Chunk
    } catch {
      return
    }
    if (c.error) serverError = true
    if (typeof c.usage?.completion_tokens === 'number') tokens = c.usage.completion_tokens
    const text = c.choices?.map((ch) => ch.text ?? ch.delta?.content ?? '').join('') ?? ''
    const closing = c.choices?.some((ch) => ch.finish_reason) ?? false
    if (text.length > 0 || (c.choices?.length && !closing)) {
      if (ttft === undefined) ttft = at - o.startMs
      else gaps.push(at - last)
      last = at
      chunks++
    }
  }
  return {
    chunk(bytes, at) {
      const text = decoder.decode(bytes, { stream: true })
      if (o.streamed) for (const e of parser.push(text)) onEvent(e, at)
      else body += text
    },
    end(at, ok) {
      const e2eMs = at - o.startMs
      if (o.streamed) {
        for (const e of parser.end()) onEvent(e, at)
      } else if (ok) {
        try {
          const j = JSON.parse(body + decoder.decode()) as Chunk
          if (typeof j.usage?.completion_tokens === 'number') tokens = j.usage.completion_tokens
          timings = j.timings
        } catch {
          // Not JSON: judged by its end-to-end latency only.
        }
      }
      const n = tokens ?? (o.streamed ? chunks : undefined)
      if (!o.streamed) {
        const decode = timings?.predicted_ms
        ttft = decode !== undefined && decode <= e2eMs ? e2eMs - decode : e2eMs
      }
      const good = ok && !serverError && (!o.streamed || ttft !== undefined)
      const tpotMs = good && ttft !== undefined && n !== undefined && n >= 2 ? (e2eMs - ttft) / (n - 1) : undefined
      const itlMs = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : undefined
      return { ok: good, e2eMs, ...(ttft === undefined ? {} : { ttftMs: ttft }), ...(tpotMs === undefined ? {} : { tpotMs }), ...(itlMs === undefined ? {} : { itlMs }), ...(n === undefined ? {} : { outputTokens: n }) }
    },
  }
}
