import { randomUUID } from 'node:crypto'
import process from 'node:process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { cacheKey, DEFAULT_CACHE_TTL_MS, openStore, type CacheKeyParts, type Store } from '@kerneltune/store'
import type { Redis } from 'ioredis'
import { withHotCache } from './hot-cache.ts'
import { connect } from './names.ts'

const REDIS = process.env.KERNELTUNE_TEST_REDIS_URL
const missing = requireOrSkip(Boolean(REDIS), 'Redis: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })

const key = (over: Partial<CacheKeyParts> = {}): CacheKeyParts => ({ tenant: 'acme', catalogVersion: '1', engine: 'vllm', engineVersion: '0.12', modelHash: 'm', hardwareFingerprint: 'h', workloadFingerprint: 'w', comboHash: 'c1', ...over })

describe.skipIf(missing)('Redis hot cache in front of the store cache', () => {
  let cold: Store
  let redis: Redis
  let store: Store
  const prefix = `kt-hot-${randomUUID().slice(0, 8)}`
  const hotKey = (k: CacheKeyParts) => `${prefix}:hot:${cacheKey(k)}`
  beforeAll(async () => {
    cold = await openStore(':memory:')
    redis = connect(REDIS!)
    store = withHotCache(cold, redis, prefix)
  })
  afterAll(async () => {
    redis.disconnect()
    await cold.close()
  })

  it('should write both layers with the 30-day TTL and answer from Redis first', async () => {
    await store.cache.put(key(), { v: 1 })
    expect(await cold.cache.get(key())).toEqual({ v: 1 })
    const ttl = await redis.pttl(hotKey(key()))
    expect(ttl).toBeGreaterThan(DEFAULT_CACHE_TTL_MS - 60_000)
    expect(ttl).toBeLessThanOrEqual(DEFAULT_CACHE_TTL_MS)
    await cold.driver.run('DELETE FROM result_cache')
    expect(await store.cache.get(key())).toEqual({ v: 1 })
  })

  it('should warm Redis from the store on a hot miss', async () => {
    const k = key({ comboHash: 'cold-only' })
    await cold.cache.put(k, { v: 2 })
    expect(await redis.exists(hotKey(k))).toBe(0)
    expect(await store.cache.get(k)).toEqual({ v: 2 })
    expect(await redis.exists(hotKey(k))).toBe(1)
  })

  it('should clear both layers on an admin flush of a tenant or of one engine, and no more', async () => {
    const a = key({ comboHash: 'f1' })
    const tgi = key({ comboHash: 'f2', engine: 'tgi' })
    const other = key({ comboHash: 'f3', tenant: 'globex' })
    for (const k of [a, tgi, other]) await store.cache.put(k, { k: k.comboHash })
    await store.cache.flush({ tenant: 'acme', engine: 'tgi' })
    expect(await store.cache.get(tgi)).toBeUndefined()
    expect(await store.cache.get(a)).toEqual({ k: 'f1' })
    await store.cache.flush({ tenant: 'acme' })
    expect(await redis.exists(hotKey(a))).toBe(0)
    expect(await store.cache.get(a)).toBeUndefined()
    expect(await store.cache.get(other)).toEqual({ k: 'f3' })
    await store.cache.flush({ allTenants: true })
    expect(await store.cache.get(other)).toBeUndefined()
  })

  it('should miss after a catalog or engine version bump and drop the stale entries from both layers', async () => {
    const old = key({ comboHash: 'v1' })
    await store.cache.put(old, { v: 'old' })
    expect(await store.cache.get({ ...old, catalogVersion: '2' })).toBeUndefined()
    expect(await store.cache.get({ ...old, engineVersion: '0.13' })).toBeUndefined()
    await store.cache.invalidateStale({ catalogVersion: '2' })
    expect(await redis.exists(hotKey(old))).toBe(0)
    expect(await cold.cache.get(old)).toBeUndefined()
    const cur = key({ comboHash: 'v2', catalogVersion: '2' })
    await store.cache.put(cur, { v: 'cur' })
    await store.cache.invalidateStale({ catalogVersion: '2', engines: { vllm: '0.13' } })
    expect(await redis.exists(hotKey(cur))).toBe(0)
  })
})
