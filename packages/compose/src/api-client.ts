/**
 * A typed client of the kernels API over any fetch: the network's (`--server URL`) or the server
 * app's called in-process (the embedded store). The route maps are the types generated from the
 * server's route schemas (`@kerneltune/web/api-types`), given by the caller, so this stays below
 * the apps; an error answer becomes the KerneltuneError of its stable code, and a run's or a tune
 * session's events are read as Server-Sent Events. Also where a command's store is: a server with
 * a token, or a database file or URL.
 */
import { ERROR_CODES, KerneltuneError, type ErrorCode, type Run, type TuneSession } from '@kerneltune/core'
import { readSse } from '@kerneltune/serving'
import type { RunEvent, TuneEvent } from '@kerneltune/tuner'

/** The events a run's or a tune session's stream sends: its stored state first, then the tuner's events, heartbeats between. */
export interface KernelsStreamEvents {
  runs: ({ type: 'state' } & Run) | RunEvent | { type: 'heartbeat' }
  tune: ({ type: 'state' } & TuneSession) | TuneEvent | { type: 'heartbeat' }
}

/** The path parameters a route ('METHOD /path/{param}') names, each a string. */
type PathParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? { [N in K]: string } & PathParams<Rest> : unknown

/** What a call of `route` sends: its path parameters (required where it has some), query and body. */
export type RouteRequest<Bodies, R extends string> = {
  query?: Record<string, string | undefined>
  body?: R extends keyof Bodies ? Bodies[R] : never
} & (R extends `${string}{${string}` ? { params: PathParams<R> } : { params?: never })

export interface RouteClient<Responses, Bodies> {
  /** Calls a route; the answer is what the generated types say it is. */
  call<R extends keyof Responses & string>(route: R, ...request: R extends `${string}{${string}` ? [RouteRequest<Bodies, R>] : [RouteRequest<Bodies, R>?]): Promise<Responses[R]>
  /** Calls any path and returns the parsed JSON, unread: for routes outside the generated types (and the tests of error answers). */
  send(method: string, path: string, body?: unknown): Promise<unknown>
  /** Follows a run's or a session's events to the end of the stream. */
  follow<K extends keyof KernelsStreamEvents>(kind: K, id: string, onEvent: (e: KernelsStreamEvents[K]) => void): Promise<void>
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

export interface RouteClientOptions {
  /** The API's root URL: origin and base path (…/api/v1/kernels). */
  readonly base: string
  readonly fetch: (request: Request) => Promise<Response>
  readonly headers?: Readonly<Record<string, string>>
  readonly close?: () => Promise<void>
  /** Called before an events stream is opened, with its path (the embedded store starts the work it follows). */
  readonly beforeEvents?: (path: string) => Promise<void>
}

/** An error answer's body, as the server's error handler writes it. */
interface ErrorBody { error?: { code?: string; message?: string; problems?: string[] } }

/** JSON calls and Server-Sent Events over the fetch given. */
export function routeClient<Responses, Bodies>(o: RouteClientOptions): RouteClient<Responses, Bodies> {
  const request = (method: string, path: string, body?: unknown) =>
    o.fetch(new Request(`${o.base}${path}`, { method, headers: { ...o.headers, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }))
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
      return (await send(method, path, req?.body)) as Responses[typeof route]
    },
    async follow(kind, id, onEvent) {
      const path = `/${kind}/${encodeURIComponent(id)}/events`
      await o.beforeEvents?.(path)
      const res = await request('GET', path)
      if (!res.ok) return failed(res)
      for await (const e of readSse(res.body!)) onEvent(JSON.parse(e.data) as Parameters<typeof onEvent>[0])
    },
    close: o.close ?? (async () => {}),
  }
}

/** Where a command's runs and sessions live: a server (URL and token) or a store (database URL and tenant). */
export type StoreTarget = { readonly kind: 'server'; readonly url: string; readonly token: string } | { readonly kind: 'embedded'; readonly databaseUrl: string; readonly tenant: string }

/**
 * The store the flags name: --server needs a token (--token or KERNELTUNE_TOKEN); without it the
 * embedded store at --db, else `defaultUrl` (the caller's default database), in --tenant or
 * KERNELTUNE_TENANT or `default`.
 */
export function storeTarget(flags: { readonly server?: string | undefined; readonly token?: string | undefined; readonly db?: string | undefined; readonly tenant?: string | undefined }, env: Readonly<Record<string, string | undefined>>, defaultUrl: () => string): StoreTarget {
  if (flags.server) {
    const token = flags.token ?? env.KERNELTUNE_TOKEN
    if (!token) throw new KerneltuneError('INVALID_INPUT', '--server needs --token T (or KERNELTUNE_TOKEN)')
    return { kind: 'server', url: flags.server.replace(/\/$/, ''), token }
  }
  return { kind: 'embedded', databaseUrl: flags.db ?? defaultUrl(), tenant: flags.tenant ?? env.KERNELTUNE_TENANT ?? 'default' }
}
