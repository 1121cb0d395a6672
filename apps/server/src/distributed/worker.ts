/**
 * A kerneltune worker: takes combination jobs from BullMQ and measures them on this machine's
 * device, storing each result in the shared store with the exactly-once guard. Runs on any number
 * of machines; each announces its device in Redis (with a TTL, so a dead worker disappears) and
 * takes jobs from the any-device queue and from the queue of its own device.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import process from 'node:process'
import { Worker, type Job } from 'bullmq'
import { KerneltuneError, type Registry } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import { deviceFingerprint, evaluateCombo, executeRun, measureTrial } from '@kerneltune/tuner'
import { withHotCache } from './hot-cache.ts'
import { ANY_DEVICE_QUEUE, connect, DEFAULT_PREFIX, deviceQueue, workerKey, type ComboJobData, type ComboJobResult, type RunJobData, type RunJobResult, type TrialJobData, type TrialJobResult } from './names.ts'

export interface WorkerOptions {
  readonly redisUrl: string
  readonly store: Store
  readonly registry: Registry
  /** Jobs measured at once (default 1: one device, one measurement). */
  readonly concurrency?: number
  /** The backend whose device this worker announces (default: the first real backend that names one). */
  readonly backend?: string
  /** The device to announce, overriding what the backend says (a name like "NVIDIA H100 80GB HBM3"). */
  readonly device?: string
  readonly prefix?: string
  /**
   * How long a job's lock lasts without renewal. A worker killed mid-measurement stops renewing;
   * after this (plus one stalled check) its job goes back to the queue for another worker.
   */
  readonly lockDurationMs?: number
  readonly stalledIntervalMs?: number
  readonly log?: (line: string) => void
}

export interface RunningWorker {
  readonly id: string
  readonly device: string
  readonly deviceFingerprint: string
  readonly queues: readonly string[]
  close(): Promise<void>
}

/** The device this worker measures on: the option, else the named (or first real) backend's, else the host. */
async function resolveDevice(options: WorkerOptions): Promise<string> {
  if (options.device) return options.device
  const backends = options.registry.list('measurement-backend')
  if (options.backend) {
    const b = options.registry.find('measurement-backend', options.backend)
    if (!b) throw new KerneltuneError('INVALID_INPUT', `no measurement backend named ${options.backend}: pick one of ${backends.map((x) => x.name).join(', ')}`)
    if (b.device) return b.device()
    return `${b.name}@${hostname()}`
  }
  for (const b of backends) {
    if (b.simulated || !b.device) continue
    try {
      return await b.device()
    } catch { /* not on this machine: try the next one */ }
  }
  return `cpu@${hostname()}`
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const log = options.log ?? (() => {})
  const device = await resolveDevice(options)
  const fingerprint = deviceFingerprint(device)
  const id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const queues = [ANY_DEVICE_QUEUE, deviceQueue(fingerprint)]
  const announce = connect(options.redisUrl)
  const key = workerKey(prefix, id)
  const info = JSON.stringify({ id, device, deviceFingerprint: fingerprint, host: hostname(), pid: process.pid, concurrency: options.concurrency ?? 1, startedAt: new Date().toISOString() })
  const beat = async () => { await announce.set(key, info, 'PX', 15_000) }
  await beat()
  const heartbeat = setInterval(() => void beat().catch(() => {}), 5_000)

  // Results and cache lookups go through the Redis hot cache in front of the store's.
  const store = withHotCache(options.store, announce, prefix)
  const process1 = async (job: Job<ComboJobData | TrialJobData | RunJobData>): Promise<ComboJobResult | TrialJobResult | RunJobResult> => {
    if (job.name === 'run') {
      // A design that pairs by round: every round of the run on this worker's device; the summary names the worker.
      const runId = (job.data as RunJobData).runId
      const run = await executeRun(runId, { store, registry: options.registry, worker: id })
      log(`kerneltune worker ${id}: run ${runId} (whole, ${String(run.target.options?.design)} design): ${run.status}`)
      const device = (run.summary as { devices?: string[] } | null)?.devices?.[0]
      return { outcome: run.status, worker: id, deviceFingerprint: fingerprint, ...(device ? { device } : {}) }
    }
    if (job.name === 'trial') {
      const t = job.data as TrialJobData
      const m = await measureTrial(t.sessionId, t.combo, { store, registry: options.registry })
      log(`kerneltune worker ${id}: tune session ${t.sessionId} trial ${t.index}: ${m.value === null ? 'failed' : 'ok'}`)
      return { value: m.value, metrics: { ...m.metrics, worker: id } }
    }
    if (!('index' in job.data) || !('runId' in job.data)) throw new KerneltuneError('INVALID_INPUT', `job ${job.id} is neither a combination, a run nor a trial`)
    const c = job.data
    const r = await evaluateCombo(c.runId, c.index, { store, registry: options.registry })
    log(`kerneltune worker ${id}: run ${c.runId} combination ${c.index}: ${r.outcome}${r.status ? ` (${r.status})` : ''}`)
    return { outcome: r.outcome, worker: id, deviceFingerprint: fingerprint, ...(r.device ? { device: r.device } : {}) }
  }
  const connections = queues.map(() => connect(options.redisUrl))
  const workers = queues.map((name, i) => new Worker<ComboJobData | TrialJobData | RunJobData, ComboJobResult | TrialJobResult | RunJobResult>(name, process1, {
    connection: connections[i]!, prefix, concurrency: options.concurrency ?? 1,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    // A job whose workers keep dying is still retried a few times before it counts as failed.
    maxStalledCount: 3,
  }))
  for (const w of workers) w.on('error', (e) => log(`kerneltune worker ${id}: ${e.message}`))
  await Promise.all(workers.map((w) => w.waitUntilReady()))
  return {
    id, device, deviceFingerprint: fingerprint, queues,
    async close() {
      clearInterval(heartbeat)
      // Finishes the jobs in hand (their results are stored) and takes no new ones.
      await Promise.all(workers.map((w) => w.close()))
      await announce.del(key).catch(() => {})
      for (const c of [announce, ...connections]) c.disconnect()
    },
  }
}
