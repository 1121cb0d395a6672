/**
 * Where the CLI's kernel-tuning commands work: a server (--server URL --token T) over HTTP, or the
 * embedded store (default: $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db,
 * or --db PATH), where the CLI runs the server app itself, in-process: the same routes, validation,
 * errors and queue answer both, so each command is written once and behaves the same either way.
 * The client and the rule of which store the flags name are compose's (api-client.ts).
 */
import type { Role } from '@kerneltune/core'
import { API_BASE, createApp, inProcess, type App } from '@kerneltune/server'
import { compose, defaultDatabaseUrl, routeClient, storeTarget, type KernelsStreamEvents, type RouteClient } from '@kerneltune/compose/node'
// The dashboard's API types, generated from the server's route schemas (pnpm --filter @kerneltune/server gen:api).
import type { ApiBodies, ApiResponses } from '@kerneltune/web/api-types'

export { routePath } from '@kerneltune/compose/node'

export interface Target { server?: string; token?: string; db?: string; tenant?: string }
export type StreamEvents = KernelsStreamEvents
/** The API's client, its routes typed by the generated types. */
export type KernelsClient = RouteClient<ApiResponses, ApiBodies>

export const TARGET_FLAGS = [
  { name: 'server', type: 'string', description: 'Server URL; without it the embedded store is used', valueName: 'URL' },
  { name: 'token', type: 'string', description: 'API token for --server (or KERNELTUNE_TOKEN)', valueName: 'T' },
  { name: 'db', type: 'string', description: 'Embedded store path (default: $XDG_DATA_HOME/kerneltune/kerneltune.db)', valueName: 'PATH' },
] as const

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
  const fetcher = async (r: Request) => app.app.fetch(r, as)
  const close = async () => {
    await app.shutdown()
    await composition.close()
  }
  const self = routeClient<ApiResponses, ApiBodies>({ base: `http://embedded${API_BASE}`, fetch: fetcher, close, beforeEvents: async (path) => {
    // Following a run or session that is not finished means running it here (the queue has it
    // once started; the events route then streams it to the end).
    const [, kind, id] = path.split('/')
    if ((kind !== 'runs' && kind !== 'tune') || !id) return
    const res = await fetcher(new Request(`http://embedded${API_BASE}/${kind}/${id}`))
    if (!res.ok) return // the events call answers the same error
    const { status } = (await res.json()) as { status: string }
    if (!FINISHED[kind]!.includes(status)) app.queue.start(kind === 'runs' ? 'run' : 'tune', id)
  } })
  return { ...self, app }
}

export async function kernelsClient(flags: Target, env: Readonly<Record<string, string | undefined>>): Promise<KernelsClient> {
  const t = storeTarget(flags, env, () => defaultDatabaseUrl(env))
  if (t.kind === 'embedded') return embedded(t.databaseUrl, t.tenant, env)
  return routeClient<ApiResponses, ApiBodies>({ base: `${t.url}${API_BASE}`, fetch: (r) => fetch(r), headers: { authorization: `Bearer ${t.token}` } })
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
