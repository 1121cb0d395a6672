/**
 * One streamed request to an OpenAI-compatible server, timed on the client: time to the first
 * content chunk (TTFT), the gaps between successive content chunks (ITL) and the end-to-end
 * latency. Token counts come from the server's `usage`; the server's own per-request `timings`
 * (where the engine sends them) are kept for the cross-check.
 */
import { sseParser } from './sse.ts'
import type { RequestSpec, ServingApi } from './workload.ts'

export interface ServerTimings {
  readonly promptN?: number
  readonly promptMs?: number
  readonly predictedN?: number
  readonly predictedMs?: number
}

export interface RequestRecord {
  readonly ok: boolean
  readonly error?: string
  /** Client clock (ms, performance.now()) when the request was sent. */
  readonly startMs: number
  readonly e2eMs: number
  readonly ttftMs?: number
  /** Gaps between successive content chunks after the first. */
  readonly itlMs: readonly number[]
  readonly promptTokens?: number
  readonly outputTokens?: number
  /** 'usage' when the server reported token counts, 'chunks' when it did not and chunks were counted. */
  readonly tokenSource?: 'usage' | 'chunks'
  readonly serverTimings?: ServerTimings
}

export interface RequestOptions {
  readonly baseUrl: string
  readonly api: ServingApi
  readonly model?: string
  readonly spec: RequestSpec
  /** Added to the JSON body (e.g. engine-specific sampling fields). */
  readonly extraBody?: Readonly<Record<string, unknown>>
  readonly timeoutMs: number
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
}

type Chunk = {
  choices?: { text?: string; delta?: { content?: string | null }; finish_reason?: string | null }[]
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null
  timings?: { prompt_n?: number; prompt_ms?: number; predicted_n?: number; predicted_ms?: number }
  error?: { message?: string } | string
}

export function requestBody(o: Pick<RequestOptions, 'api' | 'model' | 'spec' | 'extraBody'>): Record<string, unknown> {
  return {
    ...(o.model ? { model: o.model } : {}),
    ...(o.api === 'chat' ? { messages: [{ role: 'user', content: typeof o.spec.prompt === 'string' ? o.spec.prompt : o.spec.prompt.join(' ') }] } : { prompt: o.spec.prompt }),
    max_tokens: o.spec.outputTokens,
    // The asked output length, whatever the model would rather do: the OpenAI-compatible engines
    // kerneltune launches honour ignore_eos; n_predict is the C++ reference server's spelling of the cap.
    ignore_eos: true,
    n_predict: o.spec.outputTokens,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    ...o.extraBody,
  }
}

// A pooled keep-alive connection that the server closed while it sat idle fails the next request
// before the server has read a byte of it (Bun reports ECONNRESET, Node "other side closed").
// Such a request never reached the server, so it is sent once more on a fresh connection, as
// HTTP clients do for a stale pooled socket; any other failure, or one after a response began,
// stays a failed request. Up to STALE_RETRIES times: after a pause (between levels, rounds or
// capacity measurements) every idle socket of the pool may have been closed, and a retry can
// draw the next stale one (seen on a server at 2 and 4 in flight, issue 25: a candidate with
// a failed request misses its objectives, so a client artifact must not fail one).
const STALE_CONNECTION = /ECONNRESET|socket connection was closed unexpectedly|other side closed|socket hang up/i
const STALE_RETRIES = 3

/** The message and code of an error and of its cause (Node's fetch puts the socket error there). */
function describeError(e: unknown): string {
  const part = (x: unknown) => (x instanceof Error ? `${x.message} ${String((x as { code?: unknown }).code ?? '')}` : String(x ?? ''))
  return `${part(e)} ${part((e as { cause?: unknown } | null)?.cause)}`
}

export async function sendRequest(o: RequestOptions): Promise<RequestRecord> {
  const doFetch = o.fetch ?? fetch
  let startMs = performance.now()
  const timeout = AbortSignal.timeout(o.timeoutMs)
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout
  const itlMs: number[] = []
  let ttftMs: number | undefined
  // The first chunk with a choice of any kind: the time to first token when a request's tokens
  // all decode to text only at the end (e.g. bytes of an incomplete UTF-8 character).
  let firstChunkMs: number | undefined
  let last = startMs
  let chunks = 0
  let usage: Chunk['usage']
  let timings: Chunk['timings']
  const fail = (error: string): RequestRecord => ({ ok: false, error, startMs, e2eMs: performance.now() - startMs, ...(ttftMs === undefined ? {} : { ttftMs }), itlMs })
  try {
    const post = () => doFetch(`${o.baseUrl.replace(/\/$/, '')}/v1/${o.api === 'chat' ? 'chat/completions' : 'completions'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(requestBody(o)),
      signal,
    })
    let res: Response | undefined
    for (let attempt = 0; res === undefined; attempt++) {
      try {
        res = await post()
      } catch (e) {
        if (signal.aborted || attempt >= STALE_RETRIES || !STALE_CONNECTION.test(describeError(e))) throw e
        // The timing starts again: the attempt never reached the server.
        startMs = performance.now()
        last = startMs
      }
    }
    if (!res.ok || !res.body) return fail(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`)
    const parser = sseParser()
    const decoder = new TextDecoder()
    const handle = (data: string): string | undefined => {
      if (data.trim() === '[DONE]') return undefined
      let c: Chunk
      try {
        c = JSON.parse(data) as Chunk
      } catch {
        return `the server sent an event that is not JSON: ${data.slice(0, 120)}`
      }
      if (c.error) return `server error: ${typeof c.error === 'string' ? c.error : (c.error.message ?? JSON.stringify(c.error))}`
      if (c.usage) usage = c.usage
      if (c.timings) timings = c.timings
      const text = c.choices?.map((ch) => ch.text ?? ch.delta?.content ?? '').join('') ?? ''
      // A token arrived when a choice carries text, or carries no text but is not the closing
      // chunk (a server may send an empty chunk for a token whose bytes are not yet valid UTF-8).
      // As vLLM's benchmark does, the arrival of the chunk is what is timed, not its text.
      const closing = c.choices?.some((ch) => ch.finish_reason) ?? false
      if (c.choices?.length && firstChunkMs === undefined) firstChunkMs = performance.now()
      if (text.length > 0 || (c.choices?.length && !closing)) {
        const now = performance.now()
        if (ttftMs === undefined) ttftMs = now - startMs
        else itlMs.push(now - last)
        last = now
        chunks++
      }
      return undefined
    }
    const reader = res.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      const events = done ? parser.end() : parser.push(decoder.decode(value, { stream: true }))
      for (const e of events) {
        const err = handle(e)
        if (err) {
          await reader.cancel().catch(() => {})
          return fail(err)
        }
      }
      if (done) break
    }
  } catch (e) {
    // The cause says what the socket did ('fetch failed' alone does not).
    const why = timeout.aborted ? `no complete answer within ${o.timeoutMs} ms` : describeError(e).replace(/\s+/g, ' ').trim()
    return fail(why)
  }
  const e2eMs = performance.now() - startMs
  const fromUsage = typeof usage?.completion_tokens === 'number'
  if (ttftMs === undefined) {
    if (!fromUsage || usage!.completion_tokens! < 1 || firstChunkMs === undefined) return fail('the stream ended without any generated text')
    ttftMs = firstChunkMs - startMs
  }
  const serverTimings: ServerTimings | undefined = timings
    ? {
        ...(timings.prompt_n === undefined ? {} : { promptN: timings.prompt_n }),
        ...(timings.prompt_ms === undefined ? {} : { promptMs: timings.prompt_ms }),
        ...(timings.predicted_n === undefined ? {} : { predictedN: timings.predicted_n }),
        ...(timings.predicted_ms === undefined ? {} : { predictedMs: timings.predicted_ms }),
      }
    : undefined
  return {
    ok: true,
    startMs,
    e2eMs,
    ttftMs,
    itlMs,
    ...(typeof usage?.prompt_tokens === 'number' ? { promptTokens: usage.prompt_tokens } : {}),
    outputTokens: fromUsage ? usage!.completion_tokens! : chunks,
    tokenSource: fromUsage ? 'usage' : 'chunks',
    ...(serverTimings ? { serverTimings } : {}),
  }
}
