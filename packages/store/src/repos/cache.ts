/**
 * The result cache. Keys follow the seed: (catalog version, engine, engine version, model hash,
 * hardware fingerprint, workload fingerprint, combination hash). Entries expire after a TTL (30
 * days by default), and are invalidated when the catalog or engine version changes (a lookup
 * with a newer version never matches an old key) or by an admin flush.
 */
import type { SqlDriver } from '../driver.ts'
import { fromJson, now } from '../util.ts'

export const DEFAULT_CACHE_TTL_MS = 30 * 24 * 3600 * 1000

export interface CacheKeyParts {
  readonly catalogVersion: string
  readonly engine: string
  readonly engineVersion: string
  readonly modelHash: string
  readonly hardwareFingerprint: string
  readonly workloadFingerprint: string
  readonly comboHash: string
}

export function cacheKey(k: CacheKeyParts): string {
  return [k.catalogVersion, k.engine, k.engineVersion, k.modelHash, k.hardwareFingerprint, k.workloadFingerprint, k.comboHash]
    .map((p) => encodeURIComponent(p))
    .join('|')
}

export function cacheRepo(db: SqlDriver, clock: () => number = Date.now) {
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
          'INSERT INTO result_cache (cache_key, catalog_version, engine, engine_version, value, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [k, key.catalogVersion, key.engine, key.engineVersion, JSON.stringify(value), now(), clock() + ttlMs],
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
    /** Admin flush: everything, or one engine's entries. */
    async flush(filter: { engine?: string } = {}): Promise<number> {
      if (filter.engine) return (await db.run('DELETE FROM result_cache WHERE engine = ?', [filter.engine])).changes
      return (await db.run('DELETE FROM result_cache')).changes
    },
    async purgeExpired(): Promise<number> {
      return (await db.run('DELETE FROM result_cache WHERE expires_at <= ?', [clock()])).changes
    },
  }
}
export type CacheRepo = ReturnType<typeof cacheRepo>
