/**
 * The result cache. Keys are (tenant, catalog version, engine, engine version, model hash,
 * hardware fingerprint, workload fingerprint, combination hash): the seed's key with the tenant in
 * front, so that one tenant's measurements never answer another's runs. The tenant part is
 * SHARED_CACHE_TENANT only when an operator opted into a shared cache. Entries expire after a TTL
 * (30 days by default), and are invalidated when the catalog or engine version changes (a lookup
 * with a newer version never matches an old key) or by an admin flush of one tenant.
 */
import type { SqlDriver } from '../driver.ts'
import { fromJson, now } from '../util.ts'

export const DEFAULT_CACHE_TTL_MS = 30 * 24 * 3600 * 1000

/** The tenant part of keys in a cache shared across tenants (an operator's opt-in). */
export const SHARED_CACHE_TENANT = '*'

export interface CacheKeyParts {
  /** Whose measurements these are, or SHARED_CACHE_TENANT. */
  readonly tenant: string
  readonly catalogVersion: string
  readonly engine: string
  readonly engineVersion: string
  readonly modelHash: string
  readonly hardwareFingerprint: string
  readonly workloadFingerprint: string
  readonly comboHash: string
}

export function cacheKey(k: CacheKeyParts): string {
  return [k.tenant, k.catalogVersion, k.engine, k.engineVersion, k.modelHash, k.hardwareFingerprint, k.workloadFingerprint, k.comboHash]
    .map((p) => encodeURIComponent(p))
    .join('|')
}

export function cacheRepo(db: SqlDriver, clock: () => number = Date.now): CacheRepo {
  return {
    async get<T>(key: CacheKeyParts): Promise<T | undefined> {
      const rows = await db.query<{ value: string; expires_at: number }>('SELECT value, expires_at FROM result_cache WHERE cache_key = ?', [cacheKey(key)])
      const r = rows[0]
      if (!r) return undefined
      if (Number(r.expires_at) <= clock()) {
        await db.run('DELETE FROM result_cache WHERE cache_key = ?', [cacheKey(key)])
        return undefined
      }
      return fromJson<T>(r.value)
    },
    async put(key: CacheKeyParts, value: unknown, ttlMs = DEFAULT_CACHE_TTL_MS): Promise<void> {
      const k = cacheKey(key)
      await db.transaction(async (tx) => {
        await tx.run('DELETE FROM result_cache WHERE cache_key = ?', [k])
        await tx.run(
          'INSERT INTO result_cache (cache_key, tenant, catalog_version, engine, engine_version, value, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [k, key.tenant, key.catalogVersion, key.engine, key.engineVersion, JSON.stringify(value), now(), clock() + ttlMs],
        )
      })
    },
    /** Drops entries of other catalog versions, or of other versions of one engine. */
    async invalidateStale(current: { catalogVersion: string; engines?: Record<string, string> }): Promise<number> {
      let n = (await db.run('DELETE FROM result_cache WHERE catalog_version <> ?', [current.catalogVersion])).changes
      for (const [engine, version] of Object.entries(current.engines ?? {})) {
        n += (await db.run('DELETE FROM result_cache WHERE engine = ? AND engine_version <> ?', [engine, version])).changes
      }
      return n
    },
    /**
     * Admin flush of one tenant's entries (all of them, or one engine's). Only `allTenants`
     * (the superadmin's flush) reaches other tenants' entries and the shared ones.
     */
    async flush(filter: { tenant: string; engine?: string } | { allTenants: true; engine?: string }): Promise<number> {
      const where: string[] = []
      const args: string[] = []
      if ('tenant' in filter) (where.push('tenant = ?'), args.push(filter.tenant))
      if (filter.engine) (where.push('engine = ?'), args.push(filter.engine))
      return (await db.run(`DELETE FROM result_cache${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, args)).changes
    },
    async purgeExpired(): Promise<number> {
      return (await db.run('DELETE FROM result_cache WHERE expires_at <= ?', [clock()])).changes
    },
  }
}
/** What cacheRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface CacheRepo {
  get<T>(key: CacheKeyParts): Promise<T | undefined>
  put(key: CacheKeyParts, value: unknown, ttlMs?: number): Promise<void>
  /** Drops entries of other catalog versions, or of other versions of one engine. */
  invalidateStale(current: { catalogVersion: string; engines?: Record<string, string> }): Promise<number>
  /**
   * Admin flush of one tenant's entries (all of them, or one engine's). Only `allTenants`
   * (the superadmin's flush) reaches other tenants' entries and the shared ones.
   */
  flush(filter: { tenant: string; engine?: string } | { allTenants: true; engine?: string }): Promise<number>
  purgeExpired(): Promise<number>
}
