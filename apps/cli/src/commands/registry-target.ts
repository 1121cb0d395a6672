/**
 * The kernel registry as the generate and registry commands see it: the server's routes with
 * --server --token (the actor is the token), or the embedded store with --db, where the actor is
 * --as NAME (default $USER), so that a submitter and a different approver can share one database.
 */
import { KerneltuneError } from '@kerneltune/core'
import { defaultDatabaseUrl, embeddedRegistry, type RegistryTarget } from '@kerneltune/compose/node'
import { kernelsClient, TARGET_FLAGS } from '../store-location.ts'

export const REGISTRY_FLAGS = [
  ...TARGET_FLAGS,
  { name: 'as', type: 'string', description: 'Who acts, on the embedded store (default: $USER); with --server the token is the actor', valueName: 'NAME' },
] as const

export type { NewEntry, RegistryTarget } from '@kerneltune/compose/node'

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
  return embeddedRegistry(flags.db ?? defaultDatabaseUrl(env), env, env.KERNELTUNE_TENANT ?? 'default', flags.as ?? env.USER ?? 'local')
}
