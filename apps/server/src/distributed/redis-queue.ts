/**
 * The server's job queue when it is given `--redis`: a run's combinations become BullMQ jobs that
 * `kerneltune worker` processes on other machines measure, and the server only dispatches them and
 * follows the store (shared PostgreSQL) to stream progress and write the summary. The in-process
 * queue (queue.ts) stays the default; this one implements the same JobQueue interface.
 *
 * Progress: BullMQ's QueueEvents ('completed', 'failed') wake the dispatcher, which then reads the
 * store (the record of truth, written by the worker before its job completes) and streams what
 * changed to the run's SSE subscribers. A slow poll stays as the fallback for what no event
 * announces: results stored while this server was down, and jobs lost with a Redis that had no
 * append-only file.
 *
 * Exactly once: a job id derived from (run, combination), so dispatching a run again (after a
 * server restart) adds no second job, and the store refuses a second result (recordComboOnce).
 * A worker killed mid-measurement stops renewing its job's lock; BullMQ's stalled check returns the
 * job to the queue and another worker measures it. A job that keeps failing is recorded as a
 * failed combination, so a run never waits forever on it.
 *
 * Tune sessions loop in this process (through the in-process queue) and send each q-batch of
 * trials to the workers as parallel jobs.
 */
import { Queue, QueueEvents } from 'bullmq'
import { Counter, Gauge } from 'prom-client'
import type { RunCombo } from '@kerneltune/core'
import { runOptions, summarizeRun, backendForRun, type MeasureTrials, type RunEvent } from '@kerneltune/tuner'
import { createQueue, type JobQueue, type QueueDeps } from '../queue.ts'
import { ANY_DEVICE_QUEUE, comboJobId, comboJobPrefix, connect, DEFAULT_PREFIX, deviceQueue, runJobId, workerKey, trialJobId, type ComboJobData, type ComboJobResult, type RunJobData, type RunJobResult, type TrialJobData, type TrialJobResult } from './names.ts'

export interface RedisQueueOptions {
  readonly redisUrl: string
  readonly prefix?: string
  /**
   * How often a dispatching run reads the store when no queue event woke it (default 2000 ms). The
   * events ('completed', 'failed') carry progress; this poll only catches what they cannot.
   */
  readonly pollMs?: number
  /** Attempts per combination job before it is recorded as failed (default 5). */
  readonly attempts?: number
  /** Trials of a tune session measured at once, one job each (the strategy's q-batch; default 4). */
  readonly tuneBatch?: number
}

export interface RedisJobQueue extends JobQueue {
  /** Closes the Redis connections (after shutdown). */
  close(): Promise<void>
}

/** A sleep that ends early on abort or when the function handed to `onWake` is called. */
function wakeableSleep(ms: number, signal: AbortSignal, onWake: (wake: () => void) => void) {
  return new Promise<void>((resolve) => {
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    onWake(done)
  })
}

export function createRedisQueue(deps: QueueDeps, options: RedisQueueOptions): RedisJobQueue {
  const { store, registry, bus, metrics } = deps
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const pollMs = options.pollMs ?? 2000
  const connection = connect(options.redisUrl)
  type AnyQueue = Queue<ComboJobData | TrialJobData | RunJobData, ComboJobResult | TrialJobResult | RunJobResult>
  const queues = new Map<string, AnyQueue>()
  const queueNamed = (name: string): AnyQueue => {
    let q = queues.get(name)
    if (!q) queues.set(name, (q = new Queue(name, { connection, prefix }) as AnyQueue))
    return q
  }
  const eventsConnection = connect(options.redisUrl)
  const events = new QueueEvents(ANY_DEVICE_QUEUE, { connection: eventsConnection, prefix })
  // Per queue, for waiting on trial jobs; each QueueEvents holds a blocking connection of its own.
  const eventsByQueue = new Map<string, QueueEvents>([[ANY_DEVICE_QUEUE, events]])
  const extraConnections: ReturnType<typeof connect>[] = []
  const stalled = new Counter({ name: 'kerneltune_l1_queue_stalled_jobs_total', help: 'Combination jobs whose worker stopped renewing the lock (killed or hung); BullMQ returned them to the queue', registers: [metrics.registry] })
  events.on('stalled', () => stalled.inc())
  const eventsFor = (name: string): QueueEvents => {
    let e = eventsByQueue.get(name)
    if (!e) {
      const c = connect(options.redisUrl)
      extraConnections.push(c)
      eventsByQueue.set(name, (e = new QueueEvents(name, { connection: c, prefix })))
      // Device queues stall too: counted with the any-device queue's.
      e.on('stalled', () => stalled.inc())
    }
    return e
  }
  new Gauge({
    name: 'kerneltune_l1_queue_depth', help: 'Combination jobs waiting for a worker, by state', labelNames: ['state'], registers: [metrics.registry],
    async collect() {
      this.reset()
      const totals: Record<string, number> = {}
      for (const name of new Set([ANY_DEVICE_QUEUE, ...queues.keys()])) {
        const c = await queueNamed(name).getJobCounts('waiting', 'active', 'delayed', 'prioritized')
        for (const [k, v] of Object.entries(c)) totals[k] = (totals[k] ?? 0) + v
      }
      for (const [k, v] of Object.entries(totals)) this.set({ state: k }, v)
    },
  })
  new Gauge({
    name: 'kerneltune_l1_active_workers', help: 'Workers that announced themselves in the last 15 s', registers: [metrics.registry],
    async collect() {
      let n = 0
      let cursor = '0'
      do {
        const [next, keys] = await connection.scan(cursor, 'MATCH', workerKey(prefix, '*'), 'COUNT', 100)
        cursor = next
        n += keys.length
      } while (cursor !== '0')
      this.set(n)
    },
  })

  /**
   * Tier 2 across workers: a session's q-batch becomes parallel trial jobs; the session loop (in
   * this process, resumable as without Redis) waits for all of them and tells the strategy in order.
   */
  const measureTrials: MeasureTrials = async (sessionId, trials, signal) => {
    const session = await store.tune.require(null, sessionId)
    const run = await store.runs.require(null, session.runId)
    const want = runOptions(run).requireDevice
    const name = want ? deviceQueue(want) : ANY_DEVICE_QUEUE
    const queue = queueNamed(name)
    const qe = eventsFor(name)
    await qe.waitUntilReady()
    const jobs = await queue.addBulk(trials.map((t) => ({
      name: 'trial', data: { sessionId, index: t.index, combo: t.combo as Record<string, string> },
      opts: { jobId: trialJobId(sessionId, t.index, t.combo as Record<string, string>), attempts: options.attempts ?? 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 7 * 86_400 } },
    })))
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(new Error('aborted'))
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
    })
    aborted.catch(() => {})
    return Promise.all(jobs.map(async (job) => {
      try {
        return (await Promise.race([job.waitUntilFinished(qe), aborted])) as TrialJobResult
      } catch (e) {
        if (signal?.aborted) throw e
        return { value: null, metrics: { error: `no worker could measure it: ${e instanceof Error ? e.message : String(e)}` } }
      }
    }))
  }

  // Tune sessions: the loop runs in this process, its trials on the workers.
  const local = createQueue({ ...deps, tune: { measureTrials, batchSize: options.tuneBatch ?? 4 } })
  const active = new Map<string, { controller: AbortController; done: Promise<void> }>()
  let idleWaiters: (() => void)[] = []
  const settle = () => {
    if (active.size > 0) return
    const w = idleWaiters
    idleWaiters = []
    for (const f of w) f()
  }

  const publish = (runId: string, e: RunEvent) => bus.publish(runId, e)

  async function dispatch(runId: string, signal: AbortSignal): Promise<void> {
    const started = Date.now()
    let run = await store.runs.require(null, runId)
    if (run.status !== 'queued' && run.status !== 'running') return
    const opts = runOptions(run)
    const backend = backendForRun(registry, run)
    const queueName = opts.requireDevice ? deviceQueue(opts.requireDevice) : ANY_DEVICE_QUEUE
    const queue = queueNamed(queueName)
    // Listening before anything is enqueued, so no completion of this run's jobs goes unheard.
    const qe = eventsFor(queueName)
    await qe.waitUntilReady()
    const ownJob = comboJobPrefix(runId)
    /** Set by a queue event of this run's jobs; the wait loop then reads the store without sleeping. */
    let changed = false
    let failedSeen = false
    let wake: (() => void) | undefined
    const onCompleted = ({ jobId }: { jobId: string }) => {
      if (!jobId.startsWith(ownJob)) return
      changed = true
      wake?.()
    }
    const onFailed = ({ jobId }: { jobId: string }) => {
      if (!jobId.startsWith(ownJob)) return
      changed = failedSeen = true
      wake?.()
    }
    await store.runs.setStatus(runId, 'running')
    let combos = await store.runs.combos(runId)
    const total = combos.length
    publish(runId, { type: 'run.started', runId, total })
    if (opts.design === 'interleaved') {
      try {
        await dispatchWhole(runId, queue, qe, signal, started)
      } finally {
        qe.off('completed', onCompleted)
        qe.off('failed', onFailed)
      }
      return
    }
    const reported = new Set(combos.filter((c) => c.status !== 'pending').map((c) => c.index))
    const jobOpts = (c: RunCombo) => ({ jobId: comboJobId(runId, c.index), attempts: options.attempts ?? 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 7 * 86_400 } })
    const enqueue = (list: RunCombo[]) => queue.addBulk(list.map((c) => ({ name: 'combo', data: { runId, index: c.index }, opts: jobOpts(c) })))

    /** Reads the store, streams what changed, and records jobs that gave up as failed combinations. */
    const refresh = async () => {
      combos = await store.runs.combos(runId)
      for (const c of combos) {
        if (c.status === 'pending' || reported.has(c.index)) continue
        reported.add(c.index)
        if (c.cached) metrics.cacheHits.inc()
        else metrics.comboEvaluations.inc()
        publish(runId, { type: 'combo.measured', runId, index: c.index, comboHash: c.comboHash, cached: c.cached, simulated: c.simulated, metrics: c.metrics, repetitions: c.repetitions.length, stoppedEarly: Boolean((c.comparison as { stoppedEarly?: boolean } | null)?.stoppedEarly), error: c.error })
        publish(runId, { type: 'progress', runId, done: reported.size, total })
      }
    }
    const giveUps = async (list: RunCombo[]) => {
      for (const c of list) {
        const job = await queue.getJob(comboJobId(runId, c.index))
        if (!job) {
          // Lost (a Redis without its append-only file): enqueue it again.
          await enqueue([c])
          continue
        }
        if ((await job.getState()) !== 'failed') continue
        await store.runs.recordComboOnce(runId, c.index, { status: 'failed', simulated: backend.simulated, cached: false, repetitions: [], metrics: null, comparison: null, error: `no worker could measure it (${job.attemptsMade} attempts): ${job.failedReason}` })
      }
    }
    const waitFor = async (indices: Set<number>) => {
      let checked = Date.now()
      for (;;) {
        changed = false
        await refresh()
        const pending = combos.filter((c) => indices.has(c.index) && c.status === 'pending')
        if (pending.length === 0) return
        if (signal.aborted) return
        // On a 'failed' event, else every few seconds: checking job states costs a round trip per combination.
        if (failedSeen || Date.now() - checked >= 2000) {
          failedSeen = false
          checked = Date.now()
          await giveUps(pending)
        }
        // An event that came during the refresh sets `changed`: read the store again at once.
        if (!changed) await wakeableSleep(pollMs, signal, (w) => (wake = w))
        wake = undefined
      }
    }

    // Registered here, where `finally` removes them; nothing is enqueued before this point.
    qe.on('completed', onCompleted)
    qe.on('failed', onFailed)
    try {
      // The baseline first: every other combination is compared with it when it is measured.
      const baseline = combos.find((c) => c.isBaseline)
      if (baseline?.status === 'pending') {
        await enqueue([baseline])
        await waitFor(new Set([baseline.index]))
      }
      const b = combos.find((c) => c.isBaseline)
      if (!signal.aborted && b && b.status !== 'measured') throw new Error(`the baseline combination could not be measured: ${b.error}`)
      const rest = combos.filter((c) => !c.isBaseline && c.status === 'pending')
      if (!signal.aborted && rest.length) await enqueue(rest)
      if (!signal.aborted) await waitFor(new Set(rest.map((c) => c.index)))
      if (signal.aborted) {
        if (signal.reason === 'pause') {
          // The jobs stay queued and workers keep measuring: the next server continues this run.
          await store.runs.setStatus(runId, 'queued')
          return
        }
        for (const c of combos.filter((x) => x.status === 'pending')) await (await queue.getJob(comboJobId(runId, c.index)))?.remove().catch(() => {})
        throw Object.assign(new Error('cancelled by request'), { cancelled: true })
      }
      await finish('succeeded', null)
    } catch (e) {
      const cancelled = (e as { cancelled?: boolean }).cancelled === true
      await finish(cancelled ? 'cancelled' : 'failed', e instanceof Error ? e.message : String(e))
    } finally {
      qe.off('completed', onCompleted)
      qe.off('failed', onFailed)
    }

    async function finish(want: 'succeeded' | 'failed' | 'cancelled', error: string | null) {
      combos = await store.runs.combos(runId)
      const devices = new Set<string>()
      for (const c of combos) {
        const job = c.status === 'pending' ? undefined : await queue.getJob(comboJobId(runId, c.index))
        const device = (job?.returnvalue as ComboJobResult | undefined)?.device
        if (device) devices.add(device)
      }
      const stoppedEarly = combos.filter((c) => (c.comparison as { stoppedEarly?: boolean } | null)?.stoppedEarly).map((c) => c.index)
      const anyMeasured = combos.some((c) => c.status === 'measured')
      const described = { devices: [...devices], durationMs: Date.now() - started, stoppedEarly, proxy: backend.proxy, exercises: backend.exercises, equivalentValues: backend.equivalentValues, cacheScope: deps.cacheScope ?? 'tenant' }
      let status = want
      let message = error
      if (want === 'succeeded') {
        const { summary, gates, rejections } = summarizeRun(run, combos, opts, described)
        for (const r of rejections) metrics.gateRejections.inc({ reason: r })
        status = anyMeasured ? 'succeeded' : 'failed'
        if (!anyMeasured) message = 'no combination could be measured'
        await store.runs.finish(runId, status, summary, gates, message)
      } else {
        await store.runs.finish(runId, want, anyMeasured ? summarizeRun(run, combos, opts, described).summary : null, new Map(), message)
      }
      run = await store.runs.require(null, runId)
      metrics.runs.inc({ mode: run.mode, status })
      metrics.runDuration.observe({ mode: run.mode }, (Date.now() - started) / 1000)
      publish(runId, { type: 'run.finished', runId, status, summary: run.summary, error: run.error })
    }
  }

  /**
   * A run whose design pairs measurements by round goes to one worker as one job (the worker runs
   * executeRun, which stores every round and finishes the run) and the dispatcher waits for it. A
   * restarted server finds the job by its id and waits again; a worker that dies hands the job to
   * another, which measures every round again (rounds from two devices would not pair).
   */
  async function dispatchWhole(runId: string, queue: AnyQueue, qe: QueueEvents, signal: AbortSignal, started: number): Promise<void> {
    const jobId = runJobId(runId)
    const job = (await queue.getJob(jobId)) ?? (await queue.add('run', { runId, whole: true }, { jobId, attempts: options.attempts ?? 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 7 * 86_400 } }))
    const aborted = new Promise<'aborted'>((resolve) => (signal.aborted ? resolve('aborted') : signal.addEventListener('abort', () => resolve('aborted'), { once: true })))
    const outcome = await Promise.race([job.waitUntilFinished(qe).then(() => 'done' as const, (e: unknown) => (e instanceof Error ? e.message : String(e))), aborted])
    if (outcome === 'aborted') {
      // Paused: the worker keeps measuring and the next server waits for the same job. Cancelled:
      // a job not yet taken is removed; one a worker holds runs to its end (its rounds pair).
      if (signal.reason === 'pause') return
      await job.remove().catch(() => {})
    }
    let run = await store.runs.require(null, runId)
    if (run.status === 'queued' || run.status === 'running') {
      const error = outcome === 'aborted' ? 'cancelled by request' : outcome === 'done' ? 'the worker ended without finishing the run' : `no worker could measure it: ${outcome}`
      await store.runs.finish(runId, outcome === 'aborted' ? 'cancelled' : 'failed', null, new Map(), error)
      run = await store.runs.require(null, runId)
    }
    const status = run.status === 'succeeded' || run.status === 'cancelled' ? run.status : 'failed'
    metrics.runs.inc({ mode: run.mode, status })
    metrics.runDuration.observe({ mode: run.mode }, (Date.now() - started) / 1000)
    publish(runId, { type: 'run.finished', runId, status, summary: run.summary, error: run.error })
  }

  const startRun = (id: string) => {
    if (active.has(id)) return
    const controller = new AbortController()
    const done = dispatch(id, controller.signal)
      .catch(() => { /* dispatch stores its own failures */ })
      .finally(() => {
        active.delete(id)
        settle()
      })
    active.set(id, { controller, done })
  }

  return {
    enqueue: (kind, id) => (kind === 'run' ? startRun(id) : local.enqueue(kind, id)),
    start: (kind, id) => (kind === 'run' ? startRun(id) : local.start(kind, id)),
    cancel(id) {
      const a = active.get(id)
      if (a) {
        a.controller.abort('cancel')
        return true
      }
      return local.cancel(id)
    },
    has: (id) => active.has(id) || local.has(id),
    counts() {
      const l = local.counts()
      return { waiting: l.waiting, running: l.running + active.size }
    },
    async idle() {
      await local.idle()
      if (active.size > 0) await new Promise<void>((r) => idleWaiters.push(r))
    },
    async shutdown() {
      for (const a of active.values()) a.controller.abort('pause')
      await Promise.all([...active.values()].map((a) => a.done))
      await local.shutdown()
    },
    async close() {
      for (const e of eventsByQueue.values()) await e.close()
      for (const q of queues.values()) await q.close()
      for (const c of extraConnections) c.disconnect()
      connection.disconnect()
      eventsConnection.disconnect()
    },
  }
}
