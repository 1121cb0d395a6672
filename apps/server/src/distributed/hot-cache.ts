/**
 * The result cache in two layers with Redis: a hot layer in Redis in front of the store's cold one
 * (the seed's L1 service keeps its hot cache in Redis too). Workers on every machine read the hot
 * layer first; a miss there reads the store and warms Redis. Both layers keep an entry 30 days
 * (DEFAULT_CACHE_TTL_MS); an admin flush and a catalog or engine version bump clear both.
 * Hot keys are the store's cache key under `<prefix>:hot:`, whose parts are URI-encoded and start
 * with tenant | catalog version | engine | engine version, so a flush finds them by pattern.
 */
import type { Redis } from 'ioredis'
import { cacheKey, DEFAULT_CACHE_TTL_MS, type CacheKeyParts, type Store } from '@kerneltune/store'

type CacheRepo = Store['cache']

/** Escapes glob characters for SCAN MATCH. */
const glob = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`)
const part = (s: string) => glob(encodeURIComponent(s))

export function hotCache(cold: CacheRepo, redis: Redis, prefix: string): CacheRepo {
  const hot = `${prefix}:hot:`
  const scanDelete = async (pattern: string, keep?: (key: string) => boolean): Promise<number> => {
    let n = 0
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500)
      cursor = next
      const doomed = keep ? keys.filter((k) => !keep(k)) : keys
      if (doomed.length) n += await redis.del(...doomed)
    } while (cursor !== '0')
    return n
  }
  const parts = (key: string) => key.slice(hot.length).split('|').map((p) => decodeURIComponent(p))
  return {
    async get<T>(key: CacheKeyParts): Promise<T | undefined> {
      const k = hot + cacheKey(key)
      const raw = await redis.get(k)
      if (raw !== null) return JSON.parse(raw) as T
      const value = await cold.get<T>(key)
      // Warmed for at most the full TTL: the cold entry may be older, but no lookup outlives a flush.
      if (value !== undefined) await redis.set(k, JSON.stringify(value), 'PX', DEFAULT_CACHE_TTL_MS)
      return value
    },
    async put(key: CacheKeyParts, value: unknown, ttlMs = DEFAULT_CACHE_TTL_MS): Promise<void> {
      await cold.put(key, value, ttlMs)
      await redis.set(hot + cacheKey(key), JSON.stringify(value), 'PX', ttlMs)
    },
    async invalidateStale(current: { catalogVersion: string; engines?: Record<string, string> }): Promise<number> {
      const n = await cold.invalidateStale(current)
      await scanDelete(`${glob(hot)}*`, (k) => {
        const [, catalogVersion, engine, engineVersion] = parts(k)
        if (catalogVersion !== current.catalogVersion) return false
        const want = engine ? current.engines?.[engine] : undefined
        return want === undefined || want === engineVersion
      })
      return n
    },
    async flush(filter: { tenant: string; engine?: string } | { allTenants: true; engine?: string }): Promise<number> {
      const n = await cold.flush(filter)
      const tenant = 'tenant' in filter ? part(filter.tenant) : '*'
      // Tenant by pattern (the first part); engine by parsing, since a pattern could match it elsewhere.
      await scanDelete(`${glob(hot)}${tenant}|*`, (k) => Boolean(filter.engine) && parts(k)[2] !== filter.engine)
      return n
    },
    purgeExpired: () => cold.purgeExpired(),
  }
}

/** The store with the hot layer in front of its cache; everything else is the store itself. */
export function withHotCache(store: Store, redis: Redis, prefix: string): Store {
  const cache = hotCache(store.cache, redis, prefix)
  return Object.assign(Object.create(store) as Store, { cache })
}
