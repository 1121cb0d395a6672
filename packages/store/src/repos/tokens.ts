/**
 * API tokens. Only a SHA-256 hash of each token is stored; the token itself is shown once, when
 * it is minted. Each token has a role and a tenant.
 */
import { KerneltuneError, type Role } from '@kerneltune/core'
import type { SqlDriver } from '../driver.ts'
import { newId, now, sha256 } from '../util.ts'

export interface TokenInfo {
  readonly id: string
  readonly role: Role
  readonly tenant: string
  readonly label: string | null
  readonly createdAt: string
  readonly revokedAt: string | null
}

/** A random token: `kt_` and 32 bytes of hex from the platform's CSPRNG. */
export function generateToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32))
  return `kt_${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`
}

const toInfo = (r: Record<string, unknown>): TokenInfo => ({
  id: String(r.id), role: r.role as Role, tenant: String(r.tenant), label: (r.label as string | null) ?? null,
  createdAt: String(r.created_at), revokedAt: (r.revoked_at as string | null) ?? null,
})

export function tokensRepo(db: SqlDriver): TokensRepo {
  return {
    /** Stores a token (generated unless given) and returns it with its record. */
    async create(role: Role, tenant: string, label: string | null = null, token = generateToken()): Promise<{ token: string; info: TokenInfo }> {
      if (token.length < 16) throw new KerneltuneError('INVALID_INPUT', 'an API token must be at least 16 characters long')
      const id = newId()
      await db.run('INSERT INTO api_tokens (id, token_hash, role, tenant, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)', [
        id, await sha256(token), role, tenant, label, now(),
      ])
      return { token, info: { id, role, tenant, label, createdAt: now(), revokedAt: null } }
    },
    async verify(token: string): Promise<TokenInfo | undefined> {
      const rows = await db.query('SELECT * FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL', [await sha256(token)])
      return rows[0] ? toInfo(rows[0]) : undefined
    },
    async count(): Promise<number> {
      const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens')
      return Number(rows[0]?.n ?? 0)
    },
    async list(): Promise<TokenInfo[]> {
      return (await db.query('SELECT * FROM api_tokens ORDER BY created_at, id')).map(toInfo)
    },
    async revoke(id: string): Promise<boolean> {
      return (await db.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now(), id])).changes > 0
    },
  }
}
/** What tokensRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface TokensRepo {
  /** Stores a token (generated unless given) and returns it with its record. */
  create(role: Role, tenant: string, label?: string | null, token?: string): Promise<{ token: string; info: TokenInfo }>
  verify(token: string): Promise<TokenInfo | undefined>
  count(): Promise<number>
  list(): Promise<TokenInfo[]>
  revoke(id: string): Promise<boolean>
}
