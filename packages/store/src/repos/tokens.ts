/**
 * API tokens. Only a SHA-256 hash of each token is stored; the token itself is shown once, when
 * it is minted. Each token has a role and a tenant, records who minted it and whom it acts for
 * (four-eyes approval reads both, see fourEyesConflict), may expire, and every mint and revocation
 * is written to the token audit log.
 */
import { KerneltuneError, type Role } from '@kerneltune/core'
import type { Row, SqlDriver, SqlValue } from '../driver.ts'
import { fromJson, newId, sha256, stampAfter } from '../util.ts'

/** minted_by of a token written straight into the store (the bootstrap token, scripts with the database). */
export const STORE_MINTER = '(store)'

/** The latest created_at of a table (the token tables are small: an index-free MAX is cheap). */
async function latest(tx: Pick<SqlDriver, 'query'>, table: 'api_tokens' | 'api_token_events'): Promise<unknown> {
  return (await tx.query<{ last: string | null }>(`SELECT MAX(created_at) AS last FROM ${table}`))[0]?.last
}

export interface TokenInfo {
  readonly id: string
  readonly role: Role
  readonly tenant: string
  readonly label: string | null
  readonly createdAt: string
  readonly revokedAt: string | null
  readonly expiresAt: string | null
  /** Updated at most once a minute, so that verifying a token rarely writes. */
  readonly lastUsedAt: string | null
  /** The token id (or in-process principal, or STORE_MINTER) that minted it; null: minted before this was recorded. */
  readonly mintedBy: string | null
  /** The token id of the person it was minted for, when not the token itself. */
  readonly actsFor: string | null
}

export interface TokenEvent {
  readonly id: string
  readonly tokenId: string
  readonly tenant: string
  readonly action: 'create' | 'revoke'
  readonly actor: string
  readonly detail: Record<string, unknown> | null
  readonly createdAt: string
}

export interface MintOptions {
  /** Who mints it (default STORE_MINTER). */
  readonly mintedBy?: string
  /** A token id of the tenant: the new token acts for that token's person. */
  readonly actsFor?: string | null
  /** ISO-8601 instant after which the token is refused. */
  readonly expiresAt?: string | null
}

/** A random token: `kt_` and 32 bytes of hex from the platform's CSPRNG. */
export function generateToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32))
  return `kt_${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

const toInfo = (r: Row): TokenInfo => ({
  id: String(r.id), role: r.role as Role, tenant: String(r.tenant), label: str(r.label),
  createdAt: String(r.created_at), revokedAt: str(r.revoked_at), expiresAt: str(r.expires_at),
  lastUsedAt: str(r.last_used_at), mintedBy: str(r.minted_by), actsFor: str(r.acts_for),
})

const toEvent = (r: Row): TokenEvent => ({
  id: String(r.id), tokenId: String(r.token_id), tenant: String(r.tenant), action: r.action as TokenEvent['action'],
  actor: String(r.actor), detail: fromJson(r.detail), createdAt: String(r.created_at),
})

/** How many tokens four-eyes follows on each side (more linked tokens are refused rather than trusted). */
const MAX_CHAIN = 64

/** How a token is linked to the approving one, as words: "acts for B, which was minted by C". */
function linked(via: readonly { kind: 'minted' | 'actsFor'; id: string }[]): string {
  if (via.every((v) => v.kind === 'minted')) return `was minted, directly or through other tokens, by ${via.at(-1)!.id}`
  return via.map((v, i) => `${i === 0 ? '' : 'which '}${v.kind === 'minted' ? 'was minted by' : 'acts for'} ${v.id}`).join(', ')
}

const LAST_USED_EVERY_MS = 60_000

/** `clock`: now in ms, for creation stamps and expiry (tests give their own). */
export function tokensRepo(db: SqlDriver, clock: () => number = Date.now): TokensRepo {
  const row = async (id: string): Promise<Row | undefined> => (await db.query('SELECT * FROM api_tokens WHERE id = ?', [id]))[0]

  return {
    async create(role: Role, tenant: string, label: string | null = null, token = generateToken(), options: MintOptions = {}): Promise<{ token: string; info: TokenInfo }> {
      if (token.length < 16) throw new KerneltuneError('INVALID_INPUT', 'an API token must be at least 16 characters long')
      let actsFor: string | null = null
      if (options.actsFor) {
        const target = await row(options.actsFor)
        if (!target || target.tenant !== tenant) throw new KerneltuneError('NOT_FOUND', `no token ${options.actsFor} in tenant ${tenant} to act for; list them with GET /tokens`)
        // Acting for a token that itself acts for someone is acting for that someone.
        actsFor = str(target.acts_for) ?? String(target.id)
      }
      const id = newId()
      const mintedBy = options.mintedBy ?? STORE_MINTER
      const expiresAt = options.expiresAt ?? null
      const at = clock()
      let t = new Date(at).toISOString()
      await db.transaction(async (tx) => {
        // Lists and the audit log read in created_at order: tokens (and events) minted in one
        // millisecond are stamped 1 ms apart so they list in the order they were made.
        t = stampAfter(await latest(tx, 'api_tokens'), at)
        const te = stampAfter(await latest(tx, 'api_token_events'), at)
        if (te > t) t = te
        await tx.run('INSERT INTO api_tokens (id, token_hash, role, tenant, label, created_at, revoked_at, minted_by, acts_for, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL)', [
          id, await sha256(token), role, tenant, label, t, mintedBy, actsFor, expiresAt,
        ])
        await tx.run('INSERT INTO api_token_events (id, token_id, tenant, action, actor, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          newId(), id, tenant, 'create', mintedBy, JSON.stringify({ role, label, expiresAt, actsFor }), t,
        ])
      })
      return { token, info: { id, role, tenant, label, createdAt: t, revokedAt: null, expiresAt, lastUsedAt: null, mintedBy, actsFor } }
    },
    /** The token's record when it is neither revoked nor expired; notes its use (at most once a minute). */
    async verify(token: string): Promise<TokenInfo | undefined> {
      const r = (await db.query('SELECT * FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL', [await sha256(token)]))[0]
      if (!r) return undefined
      const info = toInfo(r)
      const t = clock()
      if (info.expiresAt !== null && Date.parse(info.expiresAt) <= t) return undefined
      if (info.lastUsedAt === null || t - Date.parse(info.lastUsedAt) >= LAST_USED_EVERY_MS) {
        const at = new Date(t).toISOString()
        await db.run('UPDATE api_tokens SET last_used_at = ? WHERE id = ?', [at, info.id])
        return { ...info, lastUsedAt: at }
      }
      return info
    },
    async count(): Promise<number> {
      const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens')
      return Number(rows[0]?.n ?? 0)
    },
    async get(id: string): Promise<TokenInfo | undefined> {
      const r = await row(id)
      return r ? toInfo(r) : undefined
    },
    /** Every token of a tenant (null: of every tenant), revoked and expired ones included, oldest first. */
    async list(tenant: string | null = null): Promise<TokenInfo[]> {
      const rows = tenant === null
        ? await db.query('SELECT * FROM api_tokens ORDER BY created_at, id')
        : await db.query('SELECT * FROM api_tokens WHERE tenant = ? ORDER BY created_at, id', [tenant])
      return rows.map(toInfo)
    },
    /** Revokes a live token and logs who did; false when it was already revoked or does not exist. */
    async revoke(id: string, actor: string = STORE_MINTER, reason: string | null = null): Promise<boolean> {
      return db.transaction(async (tx) => {
        const t = stampAfter(await latest(tx, 'api_token_events'), clock())
        const changed = (await tx.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [t, id])).changes > 0
        if (changed) {
          const tenant = (await tx.query('SELECT tenant FROM api_tokens WHERE id = ?', [id]))[0]?.tenant
          await tx.run('INSERT INTO api_token_events (id, token_id, tenant, action, actor, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
            newId(), id, String(tenant), 'revoke', actor, reason === null ? null : JSON.stringify({ reason }), t,
          ])
        }
        return changed
      })
    },
    /** The token audit log of a tenant (null: all), optionally of one token, oldest first. */
    async events(tenant: string | null, tokenId?: string): Promise<TokenEvent[]> {
      const where: string[] = []
      const params: SqlValue[] = []
      if (tenant !== null) (where.push('tenant = ?'), params.push(tenant))
      if (tokenId) (where.push('token_id = ?'), params.push(tokenId))
      return (await db.query(`SELECT * FROM api_token_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`, params)).map(toEvent)
    },
    /**
     * Four eyes: why the approver (a token id, or an in-process principal) counts as the submitter,
     * or undefined when it does not. Whoever mints a token has seen its secret, and a token minted
     * for someone (actsFor) goes to whoever holds that someone's token; so a token stands for every
     * token reachable from it over minted-by and acts-for links, transitively (the minters of the
     * token it acts for included). The submitter's side is every token so reachable from the
     * submitter, stopping at the superadmin (who may approve anything anyway, audited). The approver
     * is refused when a token reachable from it is on that side (issue 34 item 25 laundered an
     * approval through actsFor = a viewer the submitter had minted), or was minted before minters
     * were recorded (store migration 7), since that token may be the submitter's.
     */
    async fourEyesConflict(approver: string, submitter: string): Promise<string | undefined> {
      const fix = 'an approver whose token, and the token it acts for, were minted by someone other than the submitter (for instance by the superadmin) must approve it, or the superadmin may (break-glass, audited)'
      const tooLong = (whose: string) => `the ${whose} tokens link to more than ${MAX_CHAIN} others by minting and actsFor; ${fix}`
      // The submitter's side. Ids without a row (an in-process principal, STORE_MINTER) end a
      // branch and are not added: every token written straight into the store shares that minter.
      const party = new Set([submitter])
      const todo = [submitter]
      for (let seen = new Set<string>(); todo.length > 0;) {
        const id = todo.pop()!
        if (seen.has(id)) continue
        if (seen.size >= MAX_CHAIN) return tooLong('submitter\'s')
        seen.add(id)
        const s = await row(id)
        if (!s || (s.role === 'superadmin' && id !== submitter)) continue
        party.add(id)
        if (s.minted_by) todo.push(String(s.minted_by))
        if (s.acts_for) todo.push(String(s.acts_for))
      }
      // The approver's side, breadth first so that the refusal names the shortest link.
      type Link = { readonly id: string; readonly via: readonly { kind: 'minted' | 'actsFor'; id: string }[] }
      const queue: Link[] = [{ id: approver, via: [] }]
      for (let seen = new Set<string>(); queue.length > 0;) {
        const { id, via } = queue.shift()!
        if (seen.has(id)) continue
        if (seen.size >= MAX_CHAIN) return tooLong(`approving token ${approver}'s`)
        seen.add(id)
        if (party.has(id)) return via.length === 0 ? `the approving token ${approver} counts as the submitter (it is the submitter's token, one up its minting chain, or one it acts for); ${fix}` : `the approving token ${approver} ${linked(via)}, which counts as the submitter; ${fix}`
        const a = await row(id)
        if (!a) continue // an in-process principal or the store itself: this branch ends here
        if (a.minted_by === null || a.minted_by === undefined) return `token ${id}${via.length === 0 ? '' : ` (linked to the approving token ${approver}: it ${linked(via)})`} was minted before kerneltune recorded who mints tokens, so it may be the submitter's; ${fix}; or mint a fresh approver token with the superadmin token`
        queue.push({ id: String(a.minted_by), via: [...via, { kind: 'minted', id: String(a.minted_by) }] })
        if (a.acts_for) queue.push({ id: String(a.acts_for), via: [...via, { kind: 'actsFor', id: String(a.acts_for) }] })
      }
      return undefined
    },
  }
}
/** What tokensRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface TokensRepo {
  /** Stores a token (generated unless given) and returns it with its record; logs the mint. */
  create(role: Role, tenant: string, label?: string | null, token?: string, options?: MintOptions): Promise<{ token: string; info: TokenInfo }>
  verify(token: string): Promise<TokenInfo | undefined>
  count(): Promise<number>
  get(id: string): Promise<TokenInfo | undefined>
  list(tenant?: string | null): Promise<TokenInfo[]>
  revoke(id: string, actor?: string, reason?: string | null): Promise<boolean>
  events(tenant: string | null, tokenId?: string): Promise<TokenEvent[]>
  fourEyesConflict(approver: string, submitter: string): Promise<string | undefined>
}
