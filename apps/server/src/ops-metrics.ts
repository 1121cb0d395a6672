/**
 * The operations metrics behind deploy/grafana and deploy/prometheus/alerts.yml: API requests by
 * route and status, the in-process job queue, runs that stopped making progress, tune-session
 * budget burn, and the landing page's time to first screen reported by browsers. They sit on the
 * server's registry next to the seed metrics of metrics.ts; the gauges read their source at scrape
 * time (store or queue), so they are right after a restart and cost nothing between scrapes.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { Store } from '@kerneltune/store'
import type { JobQueue } from './queue.ts'

export interface OpsMetrics {
  readonly httpRequests: Counter<'method' | 'route' | 'status'>
  readonly landingTtfs: Histogram
}

const P = 'kerneltune_l1_'
// Pages of the store read per scrape: bounded so that a scrape stays cheap on a big store.
const PAGE = 200
const MAX_PAGES = 25

export function createOpsMetrics(registry: Registry, store: Store, queue: JobQueue): OpsMetrics {
  const registers = [registry]
  new Gauge({
    name: `${P}job_queue_jobs`, help: 'Jobs (runs and tune sessions) in the server\'s job queue, by state (waiting, running)', labelNames: ['state'], registers,
    collect() {
      const c = queue.counts()
      this.set({ state: 'waiting' }, c.waiting)
      this.set({ state: 'running' }, c.running)
    },
  })
  new Gauge({
    name: `${P}runs_active`, help: 'Tier 1 runs in the store that are queued or running, by status', labelNames: ['status'], registers,
    async collect() {
      for (const status of ['queued', 'running'] as const) this.set({ status }, (await store.runs.list(null, { status, limit: 1 })).total)
    },
  })
  new Gauge({
    name: `${P}run_stalled_seconds`, help: 'Seconds since the running run that has gone longest without progress last recorded any (0 when none is running)', registers,
    async collect() {
      let oldest = Infinity
      for (let page = 0; page < MAX_PAGES; page++) {
        const { items } = await store.runs.list(null, { status: 'running', limit: PAGE, offset: page * PAGE })
        for (const r of items) oldest = Math.min(oldest, Date.parse(r.updatedAt))
        if (items.length < PAGE) break
      }
      this.set(Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0)
    },
  })
  new Gauge({
    name: `${P}tune_budget_used_ratio`, help: 'Share of its budget a running tune session has used (trials done / trial budget, elapsed / minute budget), by session and budget kind', labelNames: ['session', 'kind'], registers,
    async collect() {
      // Only running sessions, so the label set stays as small as the work in flight.
      this.reset()
      for (let page = 0; page < MAX_PAGES; page++) {
        const items = await store.tune.list(null, PAGE, page * PAGE)
        for (const s of items) {
          if (s.status !== 'running') continue
          const budget = s.budget as { trials?: number; minutes?: number }
          if (budget.trials) this.set({ session: s.id, kind: 'trials' }, s.trialsDone / budget.trials)
          if (budget.minutes) this.set({ session: s.id, kind: 'minutes' }, s.elapsedMs / (budget.minutes * 60_000))
        }
        if (items.length < PAGE) break
      }
    },
  })
  return {
    httpRequests: new Counter({ name: `${P}http_requests_total`, help: 'HTTP requests answered, by method, matched route and status code', labelNames: ['method', 'route', 'status'], registers }),
    landingTtfs: new Histogram({
      name: `${P}landing_ttfs_seconds`, help: 'Time to first screen of the landing page, as browsers report it through POST /api/v1/kernels/metrics/client', registers,
      buckets: [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 8, 13, 30],
    }),
  }
}
