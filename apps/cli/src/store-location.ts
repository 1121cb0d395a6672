/**
 * Where the CLI's kernel-tuning commands work: a server (--server URL --token T) over HTTP, or the
 * embedded store (default: $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db,
 * or --db PATH), where the CLI runs the server app itself, in-process: the same routes, validation,
 * errors and queue answer both, so each command is written once and behaves the same either way.
 */
import { ERROR_CODES, KerneltuneError, type ErrorCode, type Role, type Run, type TuneSession } from '@kerneltune/core'
import { API_BASE, createApp, inProcess, type App } from '@kerneltune/server'
import { compose, defaultDatabaseUrl } from '@kerneltune/compose/node'
import { readSse } from '@kerneltune/serving'
import type { RunEvent, TuneEvent } from '@kerneltune/tuner'
// The dashboard's API types, generated from the server's route schemas (pnpm --filter @kerneltune/server gen:api).
import type { ApiBodies, ApiResponses } from '@kerneltune/web/api-types'

export interface Target { server?: string; token?: string; db?: string; tenant?: string }

/** A route the generated API types describe, as they name it: 'METHOD /path/{param}'. */
export type ApiRoute = keyof ApiResponses
/** The path parameters a route names, each a string. */
type PathParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? { [N in K]: string } & PathParams<Rest> : unknown
/** What a call of `route` sends: its path parameters (required where it has some), query and body. */
export type RouteRequest<R extends ApiRoute> = {
  query?: Record<string, string | undefined>
  body?: R extends keyof ApiBodies ? ApiBodies[R] : never
} & (R extends `${string}{${string}` ? { params: PathParams<R> } : { params?: never })

/** The events a run's or a tune session's stream sends: its stored state first, then the tuner's events, heartbeats between. */
export interface StreamEvents {
  runs: ({ type: 'state' } & Run) | RunEvent | { type: 'heartbeat' }
  tune: ({ type: 'state' } & TuneSession) | TuneEvent | { type: 'heartbeat' }
}

export interface KernelsClient {
  /** Calls a route; the answer is what the generated types say it is. */
  call<R extends ApiRoute>(route: R, ...request: R extends `${string}{${string}` ? [RouteRequest<R>] : [RouteRequest<R>?]): Promise<ApiResponses[R]>
  /** Calls any path and returns the parsed JSON, unread: for routes outside the generated types (and the tests of error answers). */
  send(method: string, path: string, body?: unknown): Promise<unknown>
  /** Follows a run's or a session's events to the end of the stream. */
  follow<K extends keyof StreamEvents>(kind: K, id: string, onEvent: (e: StreamEvents[K]) => void): Promise<void>
  close(): Promise<void>
}

/** The concrete path of a route: its parameters filled in (encoded), its query appended. */
export function routePath(route: string, params: Record<string, string> = {}, query: Record<string, string | undefined> = {}): { method: string; path: string } {
  const [method, template] = route.split(' ') as [string, string]
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name]
    if (v === undefined) throw new KerneltuneError('INTERNAL', `route ${route} needs its ${name} parameter`)
    return encodeURIComponent(v)
  })
  const q = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)).toString()
  return { method, path: q ? `${path}?${q}` : path }
}

export const TARGET_FLAGS = [
  { name: 'server', type: 'string', description: 'Server URL; without it the embedded store is used', valueName: 'URL' },
  { name: 'token', type: 'string', description: 'API token for --server (or KERNELTUNE_TOKEN)', valueName: 'T' },
  { name: 'db', type: 'string', description: 'Embedded store path (default: $XDG_DATA_HOME/kerneltune/kerneltune.db)', valueName: 'PATH' },
] as const

type Fetch = (request: Request) => Promise<Response>

/** An error answer's body, as the server's error handler writes it. */
interface ErrorBody { error?: { code?: string; message?: string; problems?: string[] } }

/** JSON calls and Server-Sent Events over any fetch: the network's, or the app's in-process. */
function client(base: string, fetcher: Fetch, headers: Record<string, string>, close: () => Promise<void>, beforeEvents?: (path: string) => Promise<void>): KernelsClient {
  const request = (method: string, path: string, body?: unknown) =>
    fetcher(new Request(`${base}${API_BASE}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }))
  const failed = async (res: Response): Promise<never> => {
    const doc = (await res.json().catch(() => null)) as ErrorBody | null
    const code = ERROR_CODES.find((c): c is ErrorCode => c === doc?.error?.code) ?? 'INTERNAL'
    throw new KerneltuneError(code, `${res.status}: ${doc?.error?.message ?? 'request failed'}${doc?.error?.problems ? ` (${doc.error.problems.join('; ')})` : ''}`)
  }
  const send = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await request(method, path, body)
    return res.ok ? res.json() : failed(res)
  }
  return {
    send,
    async call(route, ...[req]) {
      const { method, path } = routePath(route, req?.params as Record<string, string> | undefined, req?.query)
      // The generated types are the server's own schemas for this route's answer.
      return (await send(method, path, req?.body)) as ApiResponses[typeof route]
    },
    async follow(kind, id, onEvent) {
      const path = `/${kind}/${encodeURIComponent(id)}/events`
      await beforeEvents?.(path)
      const res = await request('GET', path)
      if (!res.ok) return failed(res)
      for await (const e of readSse(res.body!)) onEvent(JSON.parse(e.data) as Parameters<typeof onEvent>[0])
    },
    close,
  }
}

const remote = (url: string, token: string): KernelsClient =>
  client(url.replace(/\/$/, ''), (r) => fetch(r), { authorization: `Bearer ${token}` }, async () => {})

const FINISHED: Record<string, readonly string[]> = { runs: ['succeeded', 'failed', 'cancelled'], tune: ['completed', 'cancelled', 'failed'] }

/**
 * The embedded store behind the server app, called in-process as the superadmin (whoever opened
 * the database file owns it), acting in the given tenant. The app's
 * queue does not start work by itself here (autostart off): this process lives only as long as a
 * command, so a run or session runs while a command follows it (create, watch, resume) and stays
 * queued otherwise (--no-watch), to be run by a later watch, as before.
 */
export async function embedded(databaseUrl: string, tenant: string, env: Readonly<Record<string, string | undefined>> = {}): Promise<KernelsClient & { app: App }> {
  const composition = await compose({ databaseUrl, env })
  const app = createApp({ store: composition.store, registry: composition.registry, catalog: composition.catalog, env, autostart: false })
  const as = inProcess({ role: 'superadmin' satisfies Role, tenant, tokenId: 'embedded-cli' })
  const fetcher: Fetch = async (r) => app.app.fetch(r, as)
  const self = client('http://embedded', fetcher, {}, async () => {
    await app.shutdown()
    await composition.close()
  }, async (path) => {
    // Following a run or session that is not finished means running it here (the queue has it
    // once started; the events route then streams it to the end).
    const [, kind, id] = path.split('/')
    if ((kind !== 'runs' && kind !== 'tune') || !id) return
    const res = await fetcher(new Request(`http://embedded${API_BASE}/${kind}/${id}`))
    if (!res.ok) return // the events call answers the same error
    const { status } = (await res.json()) as { status: string }
    if (!FINISHED[kind]!.includes(status)) app.queue.start(kind === 'runs' ? 'run' : 'tune', id)
  })
  return { ...self, app }
}

export async function kernelsClient(flags: Target, env: Readonly<Record<string, string | undefined>>): Promise<KernelsClient> {
  if (flags.server) {
    const token = flags.token ?? env.KERNELTUNE_TOKEN
    if (!token) throw new KerneltuneError('INVALID_INPUT', '--server needs --token T (or KERNELTUNE_TOKEN)')
    return remote(flags.server, token)
  }
  return embedded(flags.db ?? defaultDatabaseUrl(env), flags.tenant ?? env.KERNELTUNE_TENANT ?? 'default', env)
}

/** Opens the client the flags name, gives it to `f`, and closes it however `f` ends. */
export async function withKernelsClient<T>(flags: Target, env: Readonly<Record<string, string | undefined>>, f: (c: KernelsClient) => Promise<T>): Promise<T> {
  const c = await kernelsClient(flags, env)
  try {
    return await f(c)
  } finally {
    await c.close()
  }
}
