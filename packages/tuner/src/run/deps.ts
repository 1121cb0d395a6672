/** What executing a run needs, shared by its designs (execute.ts, experiment-run.ts). */
import type { Registry } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import type { RunEvent } from '../events.ts'

/** Counters the server turns into Prometheus metrics; all optional. */
export interface RunObserver {
  cacheHit?(): void
  cacheMiss?(): void
  comboEvaluated?(): void
  gateRejection?(reason: string): void
}

export interface ExecuteRunDeps {
  readonly store: Store
  readonly registry: Registry
  readonly signal?: AbortSignal
  readonly onEvent?: (event: RunEvent) => void
  readonly observer?: RunObserver
  /**
   * Whose results the cache answers with: the run's tenant (default), or every tenant when the
   * operator opted into a shared cache (the run summary then says so).
   */
  readonly cacheScope?: CacheScopeName
  /** The worker measuring the run, when one does: an interleaved run's summary names it. */
  readonly worker?: string
  /** The claim this process holds on the run (store.runs.claim), when it took one: a sweep's. */
  readonly ownerId?: string
}

/** A process holding a run whose heartbeat is older than this is taken for gone. */
export const RUN_OWNER_LEASE_MS = 60_000

export type CacheScopeName = 'tenant' | 'shared'
