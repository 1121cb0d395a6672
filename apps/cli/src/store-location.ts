/**
 * Where the CLI's kernel-tuning commands work: a server (--server URL --token T) over HTTP, or the
 * embedded store (default: $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db,
 * or --db PATH), where the CLI runs the server app itself, in-process: the same routes, validation,
 * errors and queue answer both, so each command is written once and behaves the same either way.
 */
import { KerneltuneError, type Role } from '@kerneltune/core'
import { API_BASE, createApp, inProcess, type App } from '@kerneltune/server'
import { compose, defaultDatabaseUrl } from '@kerneltune/compose/node'
import { readSse } from '@kerneltune/serving'

export interface Target { server?: string; token?: string; db?: string; tenant?: string }

export type KernelsEvent = { type: string; [k: string]: unknown }

export interface KernelsClient {
  call(method: string, path: string, body?: any, onEvent?: (e: KernelsEvent) => void): Promise<any>
  close(): Promise<void>
}

export const TARGET_FLAGS = [
  { name: 'server', type: 'string', description: 'Server URL; without it the embedded store is used', valueName: 'URL' },
  { name: 'token', type: 'string', description: 'API token for --server (or KERNELTUNE_TOKEN)', valueName: 'T' },
  { name: 'db', type: 'string', description: 'Embedded store path (default: $XDG_DATA_HOME/kerneltune/kerneltune.db)', valueName: 'PATH' },
] as const

type Fetch = (request: Request) => Promise<Response>

/** JSON calls and Server-Sent Events over any fetch: the network's, or the app's in-process. */
function client(base: string, fetcher: Fetch, headers: Record<string, string>, close: () => Promise<void>, beforeEvents?: (path: string) => Promise<void>): KernelsClient {
  return {
    async call(method, path, body, onEvent) {
      if (path.endsWith('/events')) await beforeEvents?.(path)
      const res = await fetcher(new Request(`${base}${API_BASE}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }))
      if (path.endsWith('/events') && res.ok) {
        for await (const e of readSse(res.body!)) onEvent?.(JSON.parse(e.data))
        return null
      }
      const doc = (await res.json()) as any
      if (!res.ok) throw new KerneltuneError(doc?.error?.code ?? 'INTERNAL', `${res.status}: ${doc?.error?.message ?? 'request failed'}${doc?.error?.problems ? ` (${doc.error.problems.join('; ')})` : ''}`)
      return doc
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
