/**
 * A local OpenAI-compatible server that answers at once (or with a fixed delay per token), shaped
 * like the C++ reference server: streamed /v1/completions and /v1/chat/completions with `usage` and `timings`
 * in the final chunk, /health, /props and Prometheus /metrics. It measures the load generator's
 * own overhead (the benchmark) and exercises the client code without a model (the tests); it is
 * never a stand-in for an engine's figures.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { ServingCapability } from '@kerneltune/core'

/** The instant server's Prometheus names (its own: it stands in for no engine). */
export const INSTANT_SERVER_METRICS = {
  names: { promptTokens: 'instant:prompt_tokens_total', generatedTokens: 'instant:generation_tokens_total' },
  lacks: { requestsRunning: 'not exported', requestsWaiting: 'not exported', kvCacheUsage: 'no KV cache' },
} as const

/** The instant server described as a serving capability, for tests of the generic serving path. */
export const INSTANT_SERVER_SERVING: ServingCapability = {
  binary: { program: 'kerneltune-instant-server', installHint: 'it is a test server: start it with startInstantServer()' },
  readiness: { path: '/health' },
  version: { path: '/props', read: (b) => (typeof (b as { build_info?: unknown })?.build_info === 'string' ? { version: (b as { build_info: string }).build_info } : undefined) },
  metrics: INSTANT_SERVER_METRICS,
  logs: {},
  evidence: ['readiness, version and metrics: this file (instant-server.node.ts)'],
}

export interface InstantServerOptions {
  /** Delay before the first token and between tokens, ms. Default 0. */
  readonly tokenDelayMs?: number
  /** Send no chunk for this many tokens of each request, as some servers do for bytes of an incomplete UTF-8 character. */
  readonly silentTokens?: number
  /** Leave `usage` out of responses (to test the fallback). */
  readonly omitUsage?: boolean
  readonly port?: number
  /** Answer /v1/models with this parameter count in `meta.n_params`, as some servers do; default: no /v1/models. */
  readonly modelParams?: number
  /**
   * The counter names its /metrics uses: default its own (INSTANT_SERVER_METRICS); a test that
   * has it stand for an engine's endpoint gives that engine's (its serving capability's).
   */
  readonly metricNames?: { readonly promptTokens: string; readonly generatedTokens: string }
}

export interface InstantServer {
  readonly baseUrl: string
  readonly port: number
  /** Completion requests answered so far. */
  readonly served: () => number
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let s = ''
  for await (const c of req) s += c
  return s ? (JSON.parse(s) as Record<string, unknown>) : {}
}

export async function startInstantServer(o: InstantServerOptions = {}): Promise<InstantServer> {
  let served = 0
  let promptTotal = 0
  let predictedTotal = 0
  const delay = o.tokenDelayMs ?? 0
  const names = o.metricNames ?? INSTANT_SERVER_METRICS.names
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    const url = req.url ?? '/'
    if (url === '/health') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}')
    if (url === '/props') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"build_info":"instant-0"}')
    if (url === '/v1/models' && o.modelParams !== undefined) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'instant-model', object: 'model', meta: { n_params: o.modelParams } }] }))
    if (url === '/metrics') {
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(
        [[names.promptTokens, promptTotal], [names.generatedTokens, predictedTotal]].map(([n, v]) => `# TYPE ${n} counter\n${n} ${v}\n`).join(''),
      )
    }
    if (req.method !== 'POST' || !/^\/v1\/(chat\/)?completions$/.test(url)) return res.writeHead(404).end('not found')
    const b = await body(req)
    const chat = url.includes('chat')
    const n = Number(b.max_tokens ?? 16)
    const promptN = Array.isArray(b.prompt) ? b.prompt.length : String(b.prompt ?? JSON.stringify(b.messages ?? '')).split(/\s+/).length
    served++
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const t0 = performance.now()
    for (let i = 0; i < n; i++) {
      if (delay > 0) await sleep(delay)
      if (i < (o.silentTokens ?? 0)) continue
      const choice = chat ? { index: 0, delta: { content: 'x' }, finish_reason: null } : { index: 0, text: 'x', finish_reason: null }
      res.write(`data: ${JSON.stringify({ choices: [choice] })}\n\n`)
    }
    promptTotal += promptN
    predictedTotal += n
    const ms = performance.now() - t0
    const final = {
      choices: [chat ? { index: 0, delta: {}, finish_reason: 'length' } : { index: 0, text: '', finish_reason: 'length' }],
      ...(o.omitUsage ? {} : { usage: { prompt_tokens: promptN, completion_tokens: n, total_tokens: promptN + n } }),
      timings: { prompt_n: promptN, prompt_ms: delay, predicted_n: n, predicted_ms: Math.max(ms, 1e-3) },
    }
    return res.end(`data: ${JSON.stringify(final)}\n\ndata: [DONE]\n\n`)
  }
  const server = createServer((req, res) => void handle(req, res).catch((e) => res.writeHead(500).end(String(e))))
  await new Promise<void>((r) => server.listen(o.port ?? 0, '127.0.0.1', () => r()))
  const a = server.address()
  const port = typeof a === 'object' && a ? a.port : 0
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    served: () => served,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  }
}
