/**
 * @module @kerneltune/store
 * Persistent storage for kerneltune: catalog snapshots, Tier 1 runs and their combinations, Tier 2
 * tune sessions with their optimizer state, the Tier 3 registry and its approval log, the result
 * cache, API tokens and deployments. SQLite (libsql) by default, PostgreSQL by URL, one code path.
 *
 * @example
 * ```ts
 * import { openStore } from '@kerneltune/store'
 * const store = await openStore('file:kerneltune.db')
 * const { items } = await store.runs.list('default')
 * await store.close()
 * ```
 */
export { openStore, createStoreFromDriver, isPostgresUrl, sqliteUrl, type Store, type StoreOptions } from './store.ts'
export { MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations.ts'
export { toDollarParams, type SqlDriver, type SqlExecutor, type SqlValue, type Row } from './driver.ts'
export type { NewRun, RunFilter, RunBrief, RunOwner, ComboResult, SnapshotInput, RunsRepo } from './repos/runs.ts'
export type { NewTuneSession, TrialRecord, TuneRepo } from './repos/tune.ts'
export type { NewRegistryEntry, RegistryRepo } from './repos/registry.ts'
export { cacheKey, DEFAULT_CACHE_TTL_MS, SHARED_CACHE_TENANT, type CacheKeyParts, type CacheRepo } from './repos/cache.ts'
export { generateToken, STORE_MINTER, type MintOptions, type TokenEvent, type TokenInfo, type TokensRepo } from './repos/tokens.ts'
export { driftBand, type Deployment, type DriftBand, type DeploymentsRepo, type GatewayArmRow, type GatewayDecisionRow, type GatewayState } from './repos/deployments.ts'
