/**
 * Dispatch through BullMQ with every worker its own OS process, as `kerneltune worker` runs on
 * each machine: (1) overhead, combinations per second through the queue when a measurement is
 * instant (the analytical backend: a roofline prediction, no delay) with 1, 2 and 4 workers;
 * (2) speed-up of 1 → 2 → 4 workers when each measurement takes a fixed time (the analytical
 * backend sleeping --fixed-ms per repetition, 2 repetitions). Both are simulated: no device
 * measured anything, so this shows what the queue, the store and the processes cost, not a device.
 * Appends one run to bench/results/distributed-queue.json (--fresh starts the file over).
 *
 *   npx tsx --conditions=@kerneltune/source bench/distributed-queue.bench.ts \
 *     [--reps 3] [--fixed-ms 50] [--poll-ms N] [--note 'what else ran'] [--max-seconds 1500] [--fresh]
 *
 * Redis: KERNELTUNE_TEST_REDIS_URL, else a throwaway redis-server from
 * tooling/scripts/start-test-redis.sh that the bench stops on exit. Store: KERNELTUNE_TEST_PG_URL
 * (tooling/scripts/start-test-postgres.sh; the bench never starts or stops PostgreSQL, which other
 * suites may share), else a SQLite file every process of this machine opens.
 *
 * The producer (createApp + createRedisQueue, what `kerneltune serve --redis` runs) is this
 * process; it learns of finished jobs from BullMQ's queue events, its store poll only a fallback
 * (2 s by default; --poll-ms sets it). Workers: apps/server/src/distributed/worker.fixture.ts, the
 * same startWorker as `kerneltune worker` with BullMQ's default locks, plus the analytical delay
 * the CLI does not expose. They start before a setting's sweeps (their start time is recorded, not
 * timed) and stop after them. On one machine the workers share its cores, so 4 workers on 2 cores
 * cannot reach 4x even with sleeping measurements: the queue's own work competes with them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { buildCatalog } from '@kerneltune/catalog'
import { openStore, type Store } from '@kerneltune/store'
import { createRun } from '@kerneltune/tuner'
import { createApp } from '../apps/server/src/app.ts'
import { defaultRegistry } from '@kerneltune/compose/node'
import { createRedisQueue, type RedisJobQueue } from '../apps/server/src/distributed/redis-queue.ts'
import { ANY_DEVICE_QUEUE, comboJobId, connect } from '../apps/server/src/distributed/names.ts'
import { MODEL, HARDWARE } from '../apps/server/src/test-helpers.ts'
import { cleanUp, deadline, load, machine, readJson, spawnWorker, startRedis, type WorkerProcess } from './support/cluster.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const OUT = join(HERE, 'results', 'distributed-queue.json')
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1]! : dflt
}
const REPS = Number(arg('reps', '3'))
const FIXED_MS = Number(arg('fixed-ms', '50'))
const POLL_MS = process.argv.includes('--poll-ms') ? Number(arg('poll-ms', '')) : undefined
const NOTE = arg('note', '')
const MAX_SECONDS = Number(arg('max-seconds', '1500'))
const WORKER_COUNTS = [1, 2, 4]
/** A sweep that takes longer than this failed (a lost worker, a stuck queue). */
const SWEEP_LIMIT_MS = 300_000
for (const [name, v] of [['reps', REPS], ['fixed-ms', FIXED_MS], ['max-seconds', MAX_SECONDS], ['poll-ms', POLL_MS ?? 1]] as const) {
  if (!(Number.isFinite(v) && v > 0)) {
    console.error(`--${name} must be a positive number, got ${String(v)}`)
    process.exit(2)
  }
}
deadline(MAX_SECONDS)

const loadBefore = load()
const redis = startRedis()
const dir = mkdtempSync(join(tmpdir(), 'kt-bench-dq-'))
const dbUrl = process.env.KERNELTUNE_TEST_PG_URL ?? join(dir, 'bench.db')
const store: Store = await openStore(dbUrl)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const round = (x: number, digits = 3) => Number(x.toFixed(digits))

/** Starts `count` worker processes under one prefix; resolves once all take jobs. */
async function startWorkers(count: number, delayMs: number) {
  const prefix = `kt-bench-${randomUUID().slice(0, 8)}`
  const workers: WorkerProcess[] = await Promise.all(Array.from({ length: count }, (_, i) => spawnWorker({ redisUrl: redis.url, db: dbUrl, prefix, delayMs, device: `bench worker ${i}` })))
  return { prefix, workers, stop: () => Promise.all(workers.map((w) => w.stop())) }
}

/**
 * Combinations each worker process measured, from the return values BullMQ keeps with completed
 * jobs (hash `prefix:queue:jobId`, field returnvalue): shows that every process took work.
 */
async function jobsPerWorker(prefix: string, runId: string, combos: number): Promise<number[]> {
  const redisClient = connect(redis.url)
  try {
    const counts = new Map<string, number>()
    for (let i = 0; i < combos; i++) {
      const value = await redisClient.hget(`${prefix}:${ANY_DEVICE_QUEUE}:${comboJobId(runId, i)}`, 'returnvalue')
      const worker = value ? (JSON.parse(value) as { worker?: string }).worker ?? '?' : '?'
      counts.set(worker, (counts.get(worker) ?? 0) + 1)
    }
    return [...counts.values()].sort((a, b) => b - a)
  } finally {
    redisClient.disconnect()
  }
}

/** One sweep dispatched under `prefix`; seconds from dispatch to the run's final status. */
async function sweep(prefix: string, restrict: Record<string, string[]>): Promise<{ seconds: number; combos: number; perWorker: number[] }> {
  const registry = defaultRegistry()
  let queue!: RedisJobQueue
  const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: redis.url, prefix, ...(POLL_MS !== undefined ? { pollMs: POLL_MS } : {}) })) })
  let timer: NodeJS.Timeout | undefined
  try {
    const run = await createRun(store, { model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 2, warmups: 0, workload: { batch: 16, contextLength: 8192 }, restrict, maxCombos: 5000, earlyStop: false, useCache: false }, { catalog: buildCatalog(registry), registry, tenant: 'bench' })
    const t0 = performance.now()
    app.queue.enqueue('run', run.id)
    await Promise.race([app.queue.idle(), new Promise((_, fail) => (timer = setTimeout(() => fail(new Error(`a sweep took over ${SWEEP_LIMIT_MS / 1000} s`)), SWEEP_LIMIT_MS)))])
    const seconds = (performance.now() - t0) / 1000
    const done = await store.runs.require(null, run.id)
    if (done.status !== 'succeeded' || done.progress.done !== done.progress.total) throw new Error(`run ended ${done.status} with ${done.progress.done}/${done.progress.total}`)
    return { seconds, combos: done.progress.total, perWorker: await jobsPerWorker(prefix, run.id, done.progress.total) }
  } finally {
    clearTimeout(timer)
    await app.shutdown()
    await queue.close()
  }
}

/** REPS sweeps with `count` fresh worker processes, which stop afterwards. */
async function setting(count: number, delayMs: number, restrict: Record<string, string[]>) {
  const w = await startWorkers(count, delayMs)
  try {
    const runs = []
    for (let r = 0; r < REPS; r++) runs.push(await sweep(w.prefix, restrict))
    return { runs, jobsPerWorker: runs.map((x) => x.perWorker), workerStartSeconds: w.workers.map((x) => round(x.startSeconds, 2)), pids: w.workers.map((x) => x.pid) }
  } finally {
    await w.stop()
  }
}

try {
  const instant: Record<string, unknown>[] = []
  for (const workers of WORKER_COUNTS) {
    const s = await setting(workers, 0, { attention_backend: ['flash_attn_v2'] })
    const rates = s.runs.map((x) => x.combos / x.seconds)
    const combos = s.runs[0]!.combos
    instant.push({ workers, combos, combosPerSecond: { median: round(median(rates), 1), all: rates.map((x) => round(x, 1)) }, msPerCombination: round(1000 / median(rates), 1), seconds: s.runs.map((x) => round(x.seconds)), jobsPerWorker: s.jobsPerWorker, workerStartSeconds: s.workerStartSeconds })
    console.error(`instant, ${workers} worker process(es): ${median(rates).toFixed(1)} combinations/s (${combos} combinations, ${REPS} sweeps)`)
  }
  const scaling: Record<string, unknown>[] = []
  let base = 0
  const perCombination = 2 * FIXED_MS
  for (const workers of WORKER_COUNTS) {
    const s = await setting(workers, FIXED_MS, { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'] })
    const seconds = median(s.runs.map((x) => x.seconds))
    const combos = s.runs[0]!.combos
    if (workers === 1) base = seconds
    // The baseline combination is measured first, alone; the rest then spread over the workers.
    const ideal = (perCombination * (1 + Math.ceil((combos - 1) / workers))) / 1000
    scaling.push({ workers, combos, seconds: { median: round(seconds), all: s.runs.map((x) => round(x.seconds)) }, speedup: round(base / seconds, 2), idealSeconds: round(ideal), overheadSeconds: round(seconds - ideal), jobsPerWorker: s.jobsPerWorker, workerStartSeconds: s.workerStartSeconds })
    console.error(`simulated ${perCombination} ms per combination, ${workers} worker process(es): ${seconds.toFixed(2)} s, speed-up ${(base / seconds).toFixed(2)}x (ideal ${ideal.toFixed(2)} s)`)
  }

  const run = {
    date: new Date().toISOString(),
    // The arguments as given; the command is the documented one (node's own argv names tsx's loader, not how it was typed).
    args: process.argv.slice(2),
    command: 'npx tsx --conditions=@kerneltune/source bench/distributed-queue.bench.ts [args]',
    env: { KERNELTUNE_TEST_PG_URL: process.env.KERNELTUNE_TEST_PG_URL ? 'set' : 'unset', KERNELTUNE_TEST_REDIS_URL: process.env.KERNELTUNE_TEST_REDIS_URL ? 'set' : 'unset' },
    note: NOTE || undefined,
    machine: machine(),
    loadBefore,
    loadAfter: load(),
    backend: {
      name: 'analytical',
      simulated: true,
      what: `simulated, nothing was measured on a device: the analytical backend returns a roofline prediction; "instant" adds no delay, "fixedTime" sleeps ${FIXED_MS} ms per repetition (2 per combination, ${perCombination} ms)`,
    },
    processModel: {
      producer: 'this bench process: createApp + createRedisQueue, as `kerneltune serve --redis` runs them',
      workers: 'one OS process per worker (node + tsx, apps/server/src/distributed/worker.fixture.ts: startWorker as `kerneltune worker` runs it, concurrency 1, BullMQ lock and stalled check 30 s), started before a setting and stopped after it',
      sameMachine: true,
    },
    redis: { url: redis.url.replace(/\/\/[^@]*@/, '//'), startedByBench: redis.started },
    store: process.env.KERNELTUNE_TEST_PG_URL ? 'postgresql' : 'sqlite (a file shared by the processes of this machine)',
    sweepsPerSetting: REPS,
    dispatcher: { progress: 'BullMQ queue events (completed, failed) wake it', fallbackPollMs: POLL_MS ?? 'default (2000)' },
    instant,
    fixedTime: { perRepetitionMs: FIXED_MS, repetitionsPerCombination: 2, results: scaling },
  }
  const previous = process.argv.includes('--fresh') ? undefined : (readJson(OUT) as { runs?: unknown[] } | undefined)
  const file = {
    what: 'Combinations through BullMQ on a local redis-server, dispatched by a producer process and measured by worker processes (one OS process each) with the analytical backend: simulated, nothing was measured on a device. Each figure is the median of sweepsPerSetting sweeps (all values listed). One entry per bench run, oldest first.',
    runs: [...(Array.isArray(previous?.runs) ? previous.runs : []), run],
  }
  writeFileSync(OUT, JSON.stringify(file, null, 2) + '\n')
  console.error(`appended run ${file.runs.length} to bench/results/distributed-queue.json`)
} finally {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  cleanUp()
}
process.exit(0)
