/**
 * The in-process job queue: runs and tune sessions execute here, one at a time by default, so an
 * HTTP request only enqueues and never waits for a sweep. Each job has an AbortController: cancel
 * aborts it ('cancel'), shutdown pauses it ('pause').
 */
import type { Catalog } from '@kerneltune/catalog'
import type { Registry } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import { executeRun, runModelPath, runOptions, runTune, type RunTuneDeps } from '@kerneltune/tuner'
import type { EventBus } from './bus.ts'
import { requireLocalDevice, type DeviceRequest } from './device.ts'
import type { ServerMetrics } from './metrics.ts'

export interface Job { kind: 'run' | 'tune'; id: string; controller: AbortController }

export interface JobQueue {
  enqueue(kind: Job['kind'], id: string): void
  /** True when the job was queued or running and is now being cancelled. */
  cancel(id: string): boolean
  has(id: string): boolean
  /** Jobs waiting and running now (the job-queue gauge reads it at scrape time). */
  counts(): { waiting: number; running: number }
  /**
   * Queues the job if it is not queued yet and lets it run. Only needed with autostart off, where
   * a queued job waits until someone starts it.
   */
  start(kind: Job['kind'], id: string): void
  /** Resolves when nothing is queued or running (with autostart off: nothing started). */
  idle(): Promise<void>
  /** Pauses running jobs and drops queued ones. */
  shutdown(): Promise<void>
  /**
   * Refuses a run this queue cannot measure, before it is created: the in-process queue measures
   * on this machine only, so a requireDevice naming another device is refused. Absent: anything
   * goes (the Redis queue routes such a run to workers on its device).
   */
  admit?(request: DeviceRequest): Promise<void>
}

export interface QueueDeps {
  store: Store
  registry: Registry
  catalog: Catalog
  bus: EventBus
  metrics: ServerMetrics
  concurrency?: number
  /**
   * False: queued jobs wait until start() (the CLI's embedded mode, where work runs only while a
   * command follows it and a queued run stays queued when the command exits). Default true.
   */
  autostart?: boolean
  /** 'shared' only when the operator opted into a cache shared across tenants. */
  cacheScope?: 'tenant' | 'shared'
  /** Where tune trials are measured and how many at once (the Redis queue sends them to workers). */
  tune?: Pick<RunTuneDeps, 'measureTrials' | 'batchSize'>
}

export function createQueue(deps: QueueDeps): JobQueue {
  const { store, registry, catalog, bus, metrics } = deps
  const concurrency = deps.concurrency ?? 1
  const waiting: Job[] = []
  const running = new Map<string, { job: Job; done: Promise<void> }>()
  let idleWaiters: (() => void)[] = []
  const autostart = deps.autostart ?? true
  const started = new Set<string>()
  const next = () => (autostart ? (waiting.length ? 0 : -1) : waiting.findIndex((j) => started.has(j.id)))

  const exec = async (job: Job): Promise<void> => {
    const signal = job.controller.signal
    if (job.kind === 'run') {
      // A run queued before (by a server with --redis, or before a restart) that requires another
      // device fails here, with the reason, instead of being measured on the wrong one.
      const queued = await store.runs.require(null, job.id)
      const requireDevice = runOptions(queued).requireDevice
      if (requireDevice && (queued.status === 'queued' || queued.status === 'running')) {
        const refused = await requireLocalDevice(registry, { backend: queued.backend, modelPath: runModelPath(queued), requireDevice }).then(() => undefined, (e: unknown) => (e instanceof Error ? e.message : String(e)))
        if (refused) {
          await store.runs.finish(job.id, 'failed', queued.summary, new Map(), refused)
          bus.publish(job.id, { type: 'run.finished', runId: job.id, status: 'failed', summary: queued.summary, error: refused })
          metrics.runs.inc({ mode: queued.mode, status: 'failed' })
          return
        }
      }
      const started = Date.now()
      const run = await executeRun(job.id, {
        store, registry, signal, cacheScope: deps.cacheScope ?? 'tenant',
        onEvent: (e) => bus.publish(job.id, e),
        observer: {
          cacheHit: () => metrics.cacheHits.inc(),
          cacheMiss: () => metrics.cacheMisses.inc(),
          comboEvaluated: () => metrics.comboEvaluations.inc(),
          gateRejection: (reason) => metrics.gateRejections.inc({ reason }),
        },
      })
      metrics.runs.inc({ mode: run.mode, status: run.status })
      metrics.runDuration.observe({ mode: run.mode }, (Date.now() - started) / 1000)
    } else {
      await runTune(job.id, { store, registry, catalog, signal, onEvent: (e) => bus.publish(job.id, e), observer: { trial: (o) => metrics.tuneTrials.inc({ outcome: o }) }, ...deps.tune })
    }
  }

  const pump = () => {
    for (let i = next(); running.size < concurrency && i >= 0; i = next()) {
      const job = waiting.splice(i, 1)[0]!
      started.delete(job.id)
      const done = exec(job)
        .catch(() => { /* executeRun and runTune store their own failures */ })
        .finally(() => {
          running.delete(job.id)
          pump()
        })
      running.set(job.id, { job, done })
    }
    if (running.size === 0 && next() < 0) {
      const w = idleWaiters
      idleWaiters = []
      for (const f of w) f()
    }
  }

  return {
    admit: (request) => requireLocalDevice(registry, request),
    enqueue(kind, id) {
      if (running.has(id) || waiting.some((j) => j.id === id)) return
      waiting.push({ kind, id, controller: new AbortController() })
      queueMicrotask(pump)
    },
    cancel(id) {
      const r = running.get(id)
      if (r) {
        r.job.controller.abort('cancel')
        return true
      }
      const i = waiting.findIndex((j) => j.id === id)
      if (i >= 0) {
        waiting.splice(i, 1)
        started.delete(id)
        return true
      }
      return false
    },
    start(kind, id) {
      if (running.has(id)) return
      if (!waiting.some((j) => j.id === id)) waiting.push({ kind, id, controller: new AbortController() })
      started.add(id)
      queueMicrotask(pump)
    },
    has: (id) => running.has(id) || waiting.some((j) => j.id === id),
    counts: () => ({ waiting: waiting.length, running: running.size }),
    idle: () => (running.size === 0 && next() < 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r))),
    async shutdown() {
      waiting.length = 0
      started.clear()
      for (const { job } of running.values()) job.controller.abort('pause')
      await Promise.all([...running.values()].map((r) => r.done))
    },
  }
}
