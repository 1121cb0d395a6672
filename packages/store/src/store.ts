/**
 * `openStore` picks the driver from the URL: `postgres://` or `postgresql://` → PostgreSQL,
 * anything else → SQLite through libsql (`file:/path/db.sqlite`, a plain path, or `:memory:`).
 * It migrates the schema before returning.
 */
import { KerneltuneError } from '@kerneltune/core'
import type { SqlDriver } from './driver.ts'
import { migrate, schemaVersion } from './migrations.ts'
import { cacheRepo } from './repos/cache.ts'
import { deploymentsRepo } from './repos/deployments.ts'
import { registryRepo } from './repos/registry.ts'
import { runsRepo } from './repos/runs.ts'
import { tokensRepo } from './repos/tokens.ts'
import { tuneRepo } from './repos/tune.ts'

export interface StoreOptions {
  /** Now in ms, for cache and token expiry and token stamps (default Date.now; tests give their own). */
  readonly clock?: () => number
}

export interface Store {
  readonly driver: SqlDriver
  readonly url: string
  readonly runs: ReturnType<typeof runsRepo>
  readonly tune: ReturnType<typeof tuneRepo>
  readonly registry: ReturnType<typeof registryRepo>
  readonly cache: ReturnType<typeof cacheRepo>
  readonly tokens: ReturnType<typeof tokensRepo>
  readonly deployments: ReturnType<typeof deploymentsRepo>
  /** The store's clock (StoreOptions.clock): what expiries are judged against. */
  readonly clock: () => number
  schemaVersion(): Promise<number>
  close(): Promise<void>
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** Normalises a SQLite location to a libsql URL. */
export function sqliteUrl(location: string): string {
  if (location === ':memory:' || location.startsWith('file:') || /^(libsql|https?|wss?):\/\//.test(location)) return location
  return `file:${location}`
}

export async function createStoreFromDriver(driver: SqlDriver, url: string, options: StoreOptions = {}): Promise<Store> {
  await migrate(driver)
  return {
    driver,
    url,
    runs: runsRepo(driver),
    tune: tuneRepo(driver),
    registry: registryRepo(driver),
    cache: cacheRepo(driver, options.clock),
    tokens: tokensRepo(driver, options.clock),
    deployments: deploymentsRepo(driver),
    clock: options.clock ?? Date.now,
    schemaVersion: () => schemaVersion(driver),
    close: () => driver.close(),
  }
}

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  let driver: SqlDriver
  try {
    if (isPostgresUrl(url)) {
      const { createPostgresDriver } = await import('./adapters/postgres.ts')
      driver = await createPostgresDriver(url)
    } else {
      const { createLibsqlDriver } = await import('./adapters/libsql.ts')
      driver = await createLibsqlDriver(sqliteUrl(url))
    }
  } catch (cause) {
    const shown = url.replace(/\/\/[^@/]*@/, '//***@')
    throw new KerneltuneError('IO', `cannot open the store at ${shown}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
  return createStoreFromDriver(driver, url, options)
}
