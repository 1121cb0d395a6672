/**
 * Prometheus metrics with the seed's names under the `kerneltune_l1_` prefix, on a registry of
 * their own (not prom-client's global one, so that two apps in one process do not collide).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Store } from '@kerneltune/store'

export interface ServerMetrics {
  readonly registry: Registry
  readonly runs: Counter<'mode' | 'status'>
  readonly runDuration: Histogram<'mode'>
  readonly comboEvaluations: Counter
  readonly cacheHits: Counter
  readonly cacheMisses: Counter
  readonly tuneTrials: Counter<'outcome'>
  readonly gateRejections: Counter<'reason'>
  readonly registryEntries: Gauge<'status'>
}

export function createMetrics(store: Store): ServerMetrics {
  const registry = new Registry()
  const p = 'kerneltune_l1_'
  return {
    registry,
    runs: new Counter({ name: `${p}runs_total`, help: 'Tier 1 runs that reached a final status, by mode and status', labelNames: ['mode', 'status'], registers: [registry] }),
    runDuration: new Histogram({ name: `${p}run_duration_seconds`, help: 'Wall time of Tier 1 runs from start to final status', labelNames: ['mode'], buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600], registers: [registry] }),
    comboEvaluations: new Counter({ name: `${p}combo_evaluations_total`, help: 'Combinations measured by a backend (cache hits excluded)', registers: [registry] }),
    cacheHits: new Counter({ name: `${p}cache_hits_total`, help: 'Result-cache lookups that found a stored result', registers: [registry] }),
    cacheMisses: new Counter({ name: `${p}cache_misses_total`, help: 'Result-cache lookups that found nothing', registers: [registry] }),
    tuneTrials: new Counter({ name: `${p}tune_trials_total`, help: 'Tier 2 trials, by outcome', labelNames: ['outcome'], registers: [registry] }),
    gateRejections: new Counter({ name: `${p}quality_gate_rejections_total`, help: 'Combinations a quality gate rejected, by gate', labelNames: ['reason'], registers: [registry] }),
    registryEntries: new Gauge({
      name: `${p}registry_entries`, help: 'Tier 3 registry entries, by status', labelNames: ['status'], registers: [registry],
      // Read from the store at scrape time, so the gauge is right after a restart.
      async collect() {
        const counts = await store.registry.countByStatus()
        this.reset()
        for (const s of ['proposed', 'approved', 'deprecated']) this.set({ status: s }, counts[s] ?? 0)
      },
    }),
  }
}
