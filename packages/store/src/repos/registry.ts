/** The Tier 3 kernel registry and its approval log. */
import { hiddenTextIn, KerneltuneError, type RegistryEntry, type RegistryEvent } from '@kerneltune/core'
import type { Row, SqlDriver } from '../driver.ts'
import { fromJson, newId, notFound, now, stampAfter } from '../util.ts'
import { tokensRepo } from './tokens.ts'

function toEntry(r: Row): RegistryEntry {
  return {
    id: String(r.id), tenant: String(r.tenant), name: String(r.name), kernelFamily: String(r.kernel_family),
    provider: String(r.provider), source: String(r.source), status: r.status as RegistryEntry['status'],
    metadata: fromJson(r.metadata) ?? {}, createdAt: String(r.created_at), updatedAt: String(r.updated_at),
  }
}

function toEvent(r: Row): RegistryEvent {
  return {
    id: String(r.id), entryId: String(r.entry_id), action: r.action as RegistryEvent['action'], actor: String(r.actor),
    reason: (r.reason as string | null) ?? null, createdAt: String(r.created_at),
  }
}

export interface NewRegistryEntry {
  readonly tenant: string
  readonly name: string
  readonly kernelFamily: string
  readonly provider: string
  readonly source: string
  readonly metadata?: Record<string, unknown>
  readonly actor: string
}

const TEXT_FIELDS = [['source', 'source'], ['name', 'name'], ['kernelFamily', 'kernel_family'], ['provider', 'provider']] as const

export function registryRepo(db: SqlDriver): RegistryRepo {
  const tokens = tokensRepo(db)

  /**
   * The first text field of an entry that can hide text from a reviewer (core's hiddenTextIn), as
   * words, or undefined. The API refuses such text (issue 34 item 24), but an entry stored before it
   * did may hold some. SQLite keeps a NUL inside TEXT yet reads the value back cut at it, so a NUL
   * is looked for in the stored bytes; PostgreSQL never stores one in text.
   */
  async function hiddenText(entry: RegistryEntry): Promise<string | undefined> {
    if (db.dialect === 'sqlite') {
      const cols = TEXT_FIELDS.map(([f, col]) => `instr(CAST(${col} AS BLOB), X'00') AS ${col}`).join(', ')
      const at = (await db.query(`SELECT ${cols} FROM l1_kernel_registry WHERE id = ?`, [entry.id]))[0] ?? {}
      for (const [field, col] of TEXT_FIELDS) {
        if (Number(at[col]) > 0) return `its ${field} holds U+0000 (NUL) at byte ${Number(at[col]) - 1}, after which viewers show nothing`
      }
    }
    for (const [field] of TEXT_FIELDS) {
      const why = hiddenTextIn(entry[field])
      if (why) return `its ${field} holds text a reviewer may not see (${why})`
    }
    const why = hiddenTextIn(JSON.stringify(entry.metadata))
    return why ? `its metadata holds text a reviewer may not see (${why})` : undefined
  }

  async function transition(tenant: string | null, id: string, action: 'approve' | 'deprecate', actor: string, reason: string | null, allowSelf = false): Promise<RegistryEntry> {
    const entry = await get(tenant, id)
    if (!entry) throw notFound('registry entry', id)
    const to = action === 'approve' ? 'approved' : 'deprecated'
    if (action === 'approve' && entry.status !== 'proposed') {
      throw new KerneltuneError('CONFLICT', `registry entry ${id} is ${entry.status}; only a proposed entry can be approved`)
    }
    if (action === 'approve') {
      const hidden = await hiddenText(entry)
      if (hidden) throw new KerneltuneError('CONFLICT', `registry entry ${id} cannot be approved: ${hidden}; it was stored before such text was refused, and a reviewer would approve what they cannot read. Deprecate it and submit a clean copy`)
    }
    // Four eyes: whoever submitted a kernel cannot also approve it, nor can a token the submitter
    // minted or one minted for them (tokens.ts fourEyesConflict). A superadmin's break-glass
    // approval passes allowSelf, and the audit log shows who approved.
    if (action === 'approve' && !allowSelf) {
      const submitter = (await db.query('SELECT actor FROM l1_kernel_registry_approvals WHERE entry_id = ? AND action = ?', [id, 'submit']))[0]?.actor
      const conflict = submitter === undefined ? undefined : await tokens.fourEyesConflict(actor, String(submitter))
      if (conflict) throw new KerneltuneError('FORBIDDEN', `registry entry ${id} was submitted by ${String(submitter)}: ${conflict}`)
    }
    if (action === 'deprecate' && entry.status === 'deprecated') {
      throw new KerneltuneError('CONFLICT', `registry entry ${id} is already deprecated`)
    }
    await db.transaction(async (tx) => {
      // The log is read in created_at order and event ids are random: an event in the same
      // millisecond as the one before it (a submit and a deprecate in quick succession) is stamped
      // 1 ms after it, so the log never reads out of order.
      const at = stampAfter((await tx.query<{ last: string | null }>('SELECT MAX(created_at) AS last FROM l1_kernel_registry_approvals WHERE entry_id = ?', [id]))[0]?.last)
      await tx.run('UPDATE l1_kernel_registry SET status = ?, updated_at = ? WHERE id = ?', [to, at, id])
      await tx.run('INSERT INTO l1_kernel_registry_approvals (id, entry_id, action, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        newId(), id, action, actor, reason, at,
      ])
    })
    return (await get(tenant, id))!
  }

  async function get(tenant: string | null, id: string): Promise<RegistryEntry | undefined> {
    const r = (await db.query('SELECT * FROM l1_kernel_registry WHERE id = ?', [id]))[0]
    if (!r || (tenant !== null && r.tenant !== tenant)) return undefined
    return toEntry(r)
  }

  return {
    get,
    async submit(input: NewRegistryEntry): Promise<RegistryEntry> {
      const id = newId()
      const t = now()
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO l1_kernel_registry (id, tenant, name, kernel_family, provider, source, status, metadata, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'proposed', ?, ?, ?)`,
          [id, input.tenant, input.name, input.kernelFamily, input.provider, input.source, JSON.stringify(input.metadata ?? {}), t, t],
        )
        await tx.run('INSERT INTO l1_kernel_registry_approvals (id, entry_id, action, actor, reason, created_at) VALUES (?, ?, ?, ?, NULL, ?)', [
          newId(), id, 'submit', input.actor, t,
        ])
      })
      return (await get(input.tenant, id))!
    },
    approve: (tenant: string | null, id: string, actor: string, reason: string | null = null, options: { allowSelf?: boolean } = {}) => transition(tenant, id, 'approve', actor, reason, options.allowSelf ?? false),
    deprecate: (tenant: string | null, id: string, actor: string, reason: string | null = null) => transition(tenant, id, 'deprecate', actor, reason),
    async list(tenant: string | null, status?: RegistryEntry['status']): Promise<RegistryEntry[]> {
      const where: string[] = []
      const params: string[] = []
      if (tenant !== null) (where.push('tenant = ?'), params.push(tenant))
      if (status) (where.push('status = ?'), params.push(status))
      const rows = await db.query(`SELECT * FROM l1_kernel_registry ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`, params)
      return rows.map(toEntry)
    },
    async events(entryId: string): Promise<RegistryEvent[]> {
      return (await db.query('SELECT * FROM l1_kernel_registry_approvals WHERE entry_id = ? ORDER BY created_at, id', [entryId])).map(toEvent)
    },
    async countByStatus(): Promise<Record<string, number>> {
      const rows = await db.query<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM l1_kernel_registry GROUP BY status')
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
    },
  }
}
/** What registryRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface RegistryRepo {
  get: (tenant: string | null, id: string) => Promise<RegistryEntry | undefined>
  submit(input: NewRegistryEntry): Promise<RegistryEntry>
  approve: (tenant: string | null, id: string, actor: string, reason?: string | null, options?: { allowSelf?: boolean }) => Promise<RegistryEntry>
  deprecate: (tenant: string | null, id: string, actor: string, reason?: string | null) => Promise<RegistryEntry>
  list(tenant: string | null, status?: RegistryEntry['status']): Promise<RegistryEntry[]>
  events(entryId: string): Promise<RegistryEvent[]>
  countByStatus(): Promise<Record<string, number>>
}
