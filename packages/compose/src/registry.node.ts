/**
 * The kernel registry of the embedded store, as the generate and registry commands act on it: in
 * one tenant, as one actor (a submitter and a different approver can share one database). The
 * same operations over a server are its registry routes.
 */
import { KerneltuneError, type RegistryEntry, type RegistryEvent } from '@kerneltune/core'
import { compose } from './compose.node.ts'

export interface NewEntry { name: string; kernelFamily: string; provider: string; source: string; metadata: Record<string, unknown> }

export interface RegistryTarget {
  submit(e: NewEntry): Promise<RegistryEntry>
  list(status?: RegistryEntry['status']): Promise<RegistryEntry[]>
  show(id: string): Promise<{ entry: RegistryEntry; audit: RegistryEvent[] }>
  approve(id: string, reason: string): Promise<RegistryEntry>
  deprecate(id: string, reason: string): Promise<RegistryEntry>
  close(): Promise<void>
}

export async function embeddedRegistry(databaseUrl: string, env: Readonly<Record<string, string | undefined>>, tenant: string, actor: string): Promise<RegistryTarget> {
  const composition = await compose({ databaseUrl, env })
  const r = composition.store.registry
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
