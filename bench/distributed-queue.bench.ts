/**
 * Dispatch through BullMQ: (1) overhead, combinations per second through the queue with an
 * instant measurement (the analytical model, no delay) and 1 and 4 workers; (2) speed-up of 1 → 2
 * → 4 workers when each measurement takes a fixed time (the analytical backend waiting
 * --fixed-ms per repetition, 2 repetitions). Writes bench/results/distributed-queue.json.
 *
 *   KERNELTUNE_TEST_REDIS_URL=$(bash tooling/scripts/start-test-redis.sh) \
 *   KERNELTUNE_TEST_PG_URL=$(bash tooling/scripts/start-test-postgres.sh) \
 *   tsx --conditions=@kerneltune/source bench/distributed-queue.bench.ts [--reps 3] [--fixed-ms 50] [--poll-ms N]
 *
 * The dispatcher learns of finished jobs from BullMQ's queue events; its store poll is only a
 * fallback (2 s by default, as `serve --redis` runs it). --poll-ms sets that poll, to compare with
 * polling alone at a short interval.
 *
 * The workers run in this one process (each with its own Redis connections, as on separate
 * machines), so "4 workers" is four concurrent BullMQ consumers on this machine, not four
 * devices: with a fixed-time measurement the ideal is a 4x speed-up; the instant case shows what
 * the queue and the store cost per combination. The store is PostgreSQL when
 * KERNELTUNE_TEST_PG_URL is set, else a SQLite file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { buildCatalog } from '../packages/catalog/src/index.ts'
import { openStore, type Store } from '../packages/store/src/index.ts'
import { createRun } from '../packages/tuner/src/index.ts'
import { createApp } from '../apps/server/src/app.ts'
import { defaultRegistry } from '../apps/server/src/compose.node.ts'
import { createRedisQueue, type RedisJobQueue } from '../apps/server/src/distributed/redis-queue.ts'
import { startWorker } from '../apps/server/src/distributed/worker.ts'
import { MODEL, HARDWARE } from '../apps/server/src/test-helpers.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1]! : dflt
}
const REPS = Number(arg('reps', '3'))
const FIXED_MS = Number(arg('fixed-ms', '50'))
const POLL_MS = process.argv.includes('--poll-ms') ? Number(arg('poll-ms', '')) : undefined
const REDIS = process.env.KERNELTUNE_TEST_REDIS_URL
if (!REDIS) {
  console.error('skipped: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh prints one)')
  process.exit(0)
}
const dir = mkdtempSync(join(tmpdir(), 'kt-bench-dq-'))
const store: Store = await openStore(process.env.KERNELTUNE_TEST_PG_URL ?? join(dir, 'bench.db'))

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** One sweep through the queue; seconds from dispatch to the run's final status. */
async function sweep(workers: number, delayMs: number, restrict: Record<string, string[]>): Promise<{ seconds: number; combos: number }> {
  const prefix = `kt-bench-${randomUUID().slice(0, 8)}`
  const registry = defaultRegistry({ analytical: { delayMs } })
  const running = await Promise.all(Array.from({ length: workers }, (_, i) => startWorker({ redisUrl: REDIS!, store, registry, prefix, device: `bench worker ${i}` })))
  let queue!: RedisJobQueue
  const app = createApp({ store, registry, queueFactory: (d) => (queue = createRedisQueue(d, { redisUrl: REDIS!, prefix, ...(POLL_MS !== undefined ? { pollMs: POLL_MS } : {}) })) })
  try {
    const run = await createRun(store, { model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 2, warmups: 0, workload: { batch: 16, contextLength: 8192 }, restrict, maxCombos: 5000, earlyStop: false, useCache: false }, { catalog: buildCatalog(registry), registry, tenant: 'bench' })
    const t0 = performance.now()
    app.queue.enqueue('run', run.id)
    await app.queue.idle()
    const seconds = (performance.now() - t0) / 1000
    const done = await store.runs.require(null, run.id)
    if (done.status !== 'succeeded' || done.progress.done !== done.progress.total) throw new Error(`run ended ${done.status} with ${done.progress.done}/${done.progress.total}`)
    return { seconds, combos: done.progress.total }
  } finally {
    await app.shutdown()
    await queue.close()
    for (const w of running) await w.close()
  }
}

const overhead: Record<string, unknown>[] = []
for (const workers of [1, 4]) {
  const runs = []
  for (let r = 0; r < REPS; r++) runs.push(await sweep(workers, 0, { attention_backend: ['flash_attn_v2'] }))
  const rates = runs.map((x) => x.combos / x.seconds)
  overhead.push({ workers, combos: runs[0]!.combos, combosPerSecond: { median: median(rates), all: rates }, seconds: runs.map((x) => x.seconds) })
  console.error(`instant, ${workers} worker(s): ${median(rates).toFixed(1)} combinations/s (${runs[0]!.combos} combinations, ${REPS} sweeps)`)
}
const scaling: Record<string, unknown>[] = []
let base = 0
for (const workers of [1, 2, 4]) {
  const runs = []
  for (let r = 0; r < REPS; r++) runs.push(await sweep(workers, FIXED_MS, { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'] }))
  const s = median(runs.map((x) => x.seconds))
  if (workers === 1) base = s
  scaling.push({ workers, combos: runs[0]!.combos, seconds: { median: s, all: runs.map((x) => x.seconds) }, speedup: base / s, idealSeconds: (runs[0]!.combos * 2 * FIXED_MS) / 1000 / workers })
  console.error(`fixed ${2 * FIXED_MS} ms per combination, ${workers} worker(s): ${s.toFixed(2)} s, speed-up ${(base / s).toFixed(2)}x`)
}

const result = {
  what: 'Combinations through BullMQ on a local redis-server, dispatched by the server queue and measured by in-process workers; each figure is the median of `repetitions` sweeps (all values listed).',
  measuredOn: { cpu: cpus()[0]?.model, cores: cpus().length, loadAverage1m: loadavg()[0], store: process.env.KERNELTUNE_TEST_PG_URL ? 'postgresql' : 'sqlite', node: process.version },
  repetitions: REPS,
  dispatcher: { progress: 'BullMQ queue events (completed, failed) wake it', fallbackPollMs: POLL_MS ?? 'default (2000)' },
  instant: overhead,
  fixedTime: { perRepetitionMs: FIXED_MS, repetitionsPerCombination: 2, results: scaling },
  date: new Date().toISOString(),
}
writeFileSync(join(HERE, 'results', 'distributed-queue.json'), JSON.stringify(result, null, 2) + '\n')
await store.close()
rmSync(dir, { recursive: true, force: true })
console.error('wrote bench/results/distributed-queue.json')
process.exit(0)
