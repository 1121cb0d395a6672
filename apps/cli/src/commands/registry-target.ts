/**
 * The kernel registry as the generate and registry commands see it: the server's routes with
 * --server --token (the actor is the token), or the embedded store with --db, where the actor is
 * --as NAME (default $USER), so that a submitter and a different approver can share one database.
 */
import { KerneltuneError, type RegistryEntry, type RegistryEvent } from '@kerneltune/core'
import { compose, defaultDatabaseUrl } from '@kerneltune/compose/node'
import { kernelsClient, TARGET_FLAGS } from '../store-location.ts'

export const REGISTRY_FLAGS = [
  ...TARGET_FLAGS,
  { name: 'as', type: 'string', description: 'Who acts, on the embedded store (default: $USER); with --server the token is the actor', valueName: 'NAME' },
] as const

export interface NewEntry { name: string; kernelFamily: string; provider: string; source: string; metadata: Record<string, unknown> }

export interface RegistryTarget {
  submit(e: NewEntry): Promise<RegistryEntry>
  list(status?: RegistryEntry['status']): Promise<RegistryEntry[]>
  show(id: string): Promise<{ entry: RegistryEntry; audit: RegistryEvent[] }>
  approve(id: string, reason: string): Promise<RegistryEntry>
  deprecate(id: string, reason: string): Promise<RegistryEntry>
  close(): Promise<void>
}

type Flags = { server?: string; token?: string; db?: string; as?: string }

export async function registryTarget(flags: Flags, env: Readonly<Record<string, string | undefined>>): Promise<RegistryTarget> {
  if (flags.server) {
    const c = await kernelsClient(flags, env)
    const find = async (id: string) => {
      const e = (await c.call('GET /registry')).items.find((x) => x.id === id)
      if (!e) throw new KerneltuneError('NOT_FOUND', `no registry entry ${id}; list them with kerneltune registry list`)
      return e
    }
    return {
      submit: (e) => c.call('POST /registry', { body: e }),
      list: async (status) => (await c.call('GET /registry', { query: { status } })).items,
      show: async (id) => ({ entry: await find(id), audit: (await c.call('GET /registry/{id}/audit', { params: { id } })).items }),
      approve: (id, reason) => c.call('POST /registry/{id}/approve', { params: { id }, body: { reason } }),
      deprecate: (id, reason) => c.call('POST /registry/{id}/deprecate', { params: { id }, body: { reason } }),
      close: () => c.close(),
    }
  }
  const composition = await compose({ databaseUrl: flags.db ?? defaultDatabaseUrl(env), env })
  const r = composition.store.registry
  const tenant = env.KERNELTUNE_TENANT ?? 'default'
  const actor = flags.as ?? env.USER ?? 'local'
  const get = async (id: string) => {
    const e = await r.get(tenant, id)
    if (!e) throw new KerneltuneError('NOT_FOUND', `no registry entry ${id}; list them with kerneltune registry list`)
    return e
  }
  return {
    submit: (e) => r.submit({ tenant, actor, ...e }),
    list: (status) => r.list(tenant, status),
    show: async (id) => ({ entry: await get(id), audit: await r.events((await get(id)).id) }),
    approve: async (id, reason) => r.approve(tenant, (await get(id)).id, actor, reason),
    deprecate: async (id, reason) => r.deprecate(tenant, (await get(id)).id, actor, reason),
    close: () => composition.close(),
  }
}
