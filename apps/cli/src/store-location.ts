/**
 * Where the CLI's kernel-tuning commands work: the embedded store (default: $KERNELTUNE_DATABASE_URL,
 * else $XDG_DATA_HOME/kerneltune/kerneltune.db, or --db PATH) or a server (--server URL --token T).
 * Both sides expose the same calls, so each command is written once.
 */
import { KerneltuneError } from '@kerneltune/core'
import { API_BASE } from '@kerneltune/server'
import { defaultDatabaseUrl, defaultRegistry, openStoreAt } from '@kerneltune/server/node'
import { buildCatalog } from '@kerneltune/catalog'
import { applyRun, createRun, executeRun, runTune, startTune } from '@kerneltune/tuner'

export interface Target { server?: string; token?: string; db?: string; tenant?: string }

export interface KernelsClient {
  call(method: string, path: string, body?: any, onEvent?: (e: { type: string; [k: string]: unknown }) => void): Promise<any>
  close(): Promise<void>
}

export const TARGET_FLAGS = [
  { name: 'server', type: 'string', description: 'Server URL; without it the embedded store is used', valueName: 'URL' },
  { name: 'token', type: 'string', description: 'API token for --server (or KERNELTUNE_TOKEN)', valueName: 'T' },
  { name: 'db', type: 'string', description: 'Embedded store path (default: $XDG_DATA_HOME/kerneltune/kerneltune.db)', valueName: 'PATH' },
] as const

function remote(url: string, token: string): KernelsClient {
  return {
    async call(method, path, body, onEvent) {
      const res = await fetch(`${url.replace(/\/$/, '')}${API_BASE}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
      if (path.endsWith('/events') && res.ok) {
        const text = res.body!.pipeThrough(new TextDecoderStream()).getReader()
        let buf = ''
        for (;;) {
          const { value, done } = await text.read()
          if (done) return null
          buf += value
          let i: number
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i)
            buf = buf.slice(i + 2)
            const data = frame.split('\n').find((l) => l.startsWith('data: '))
            if (data) onEvent?.(JSON.parse(data.slice(6)))
          }
        }
      }
      const doc = (await res.json()) as any
      if (!res.ok) throw new KerneltuneError(doc?.error?.code ?? 'INTERNAL', `${res.status}: ${doc?.error?.message ?? 'request failed'}${doc?.error?.problems ? ` (${doc.error.problems.join('; ')})` : ''}`)
      return doc
    },
    close: async () => {},
  }
}

async function local(dbPath: string, tenant: string): Promise<KernelsClient> {
  const store = await openStoreAt(dbPath)
  const registry = defaultRegistry()
  const catalog = buildCatalog(registry)
  const wait = async (id: string, onEvent?: (e: any) => void) => {
    // Local runs execute in this process: watching one means running it if it is still queued.
    const run = await store.runs.require(tenant, id)
    if (run.status === 'queued' || run.status === 'running') return executeRun(id, { store, registry, ...(onEvent ? { onEvent } : {}) })
    onEvent?.({ type: 'run.finished', runId: id, status: run.status, summary: run.summary, error: run.error })
    return run
  }
  return {
    async call(method, path, body, onEvent) {
      const [, kind, id, action] = path.split('?')[0]!.split('/')
      const q = new URLSearchParams(path.split('?')[1] ?? '')
      if (kind === 'runs' && method === 'POST' && !id) return createRun(store, body, { catalog, registry, tenant })
      if (kind === 'runs' && method === 'GET' && !id) return store.runs.list(tenant, { limit: Number(q.get('limit') ?? 50), ...(q.get('status') ? { status: q.get('status') as never } : {}) })
      if (kind === 'runs' && action === 'events') return wait(id!, onEvent)
      if (kind === 'runs' && action === 'combos') return { items: await store.runs.combos((await store.runs.require(tenant, id!)).id) }
      if (kind === 'runs' && action === 'apply') return applyRun(store, registry, tenant, id!, body ?? {})
      if (kind === 'runs' && action === 'cancel') {
        // As the server does: a finished run keeps its status (a succeeded run stays succeeded).
        const run = await store.runs.require(tenant, id!)
        if (['succeeded', 'failed', 'cancelled'].includes(run.status)) return { id: run.id, status: run.status, cancelled: false }
        await store.runs.finish(run.id, 'cancelled', run.summary, new Map(), 'cancelled by request')
        return { id: run.id, status: 'cancelled', cancelled: true }
      }
      if (kind === 'runs' && method === 'GET') return store.runs.require(tenant, id!)
      if (kind === 'tune' && method === 'POST' && !id) return startTune(store, body, { registry, catalog, tenant })
      if (kind === 'tune' && (action === 'events' || action === 'resume')) return runTune(id!, { store, registry, catalog, ...(onEvent ? { onEvent } : {}) })
      if (kind === 'tune' && action === 'cancel') {
        const s = await store.tune.require(tenant, id!)
        if (['completed', 'cancelled', 'failed'].includes(s.status)) return { id: s.id, status: s.status, cancelled: false }
        await store.tune.setStatus(s.id, 'cancelled')
        return { id: s.id, status: 'cancelled', cancelled: true }
      }
      if (kind === 'tune' && method === 'GET') return { ...(await store.tune.require(tenant, id!)), trials: await store.tune.trials(id!) }
      if (kind === 'tokens') return (async () => { const { token, info } = await store.tokens.create(body.role, body.tenant, body.label ?? null); return { token, ...info } })()
      throw new KerneltuneError('UNSUPPORTED', `${method} ${path} is not available against the embedded store`)
    },
    close: () => store.close(),
  }
}

export async function kernelsClient(flags: Target, env: Readonly<Record<string, string | undefined>>): Promise<KernelsClient> {
  if (flags.server) {
    const token = flags.token ?? env.KERNELTUNE_TOKEN
    if (!token) throw new KerneltuneError('INVALID_INPUT', '--server needs --token T (or KERNELTUNE_TOKEN)')
    return remote(flags.server, token)
  }
  return local(flags.db ?? defaultDatabaseUrl(env), flags.tenant ?? env.KERNELTUNE_TENANT ?? 'default')
}
