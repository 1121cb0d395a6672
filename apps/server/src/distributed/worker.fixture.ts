/**
 * A worker process for the distributed tests and bench/distributed-queue.bench.ts: the default
 * plugins, the analytical backend waiting KT_DELAY_MS per measurement (so the test can kill it
 * mid-measurement; `kerneltune worker` has no such delay), short job locks so a killed worker's job
 * is retried within seconds (KT_LOCK_MS / KT_STALLED_MS override them: the bench passes BullMQ's
 * defaults, as `kerneltune worker` runs). Prints `{"id": …}` once it takes jobs.
 *
 * KT_EXIT_WITH_STDIN=1: stop when stdin closes. The bench keeps a pipe open to each worker, so a
 * bench killed outright (SIGKILL, no exit handler) still leaves no worker behind.
 */
import process from 'node:process'
import { openStore } from '@kerneltune/store'
import { defaultRegistry } from '@kerneltune/compose/node'
import { startWorker } from './worker.ts'

const env = process.env
const store = await openStore(env.KT_DB!)
const w = await startWorker({
  redisUrl: env.KT_REDIS!, store, registry: defaultRegistry({ analytical: { delayMs: Number(env.KT_DELAY_MS ?? 0) } }),
  prefix: env.KT_PREFIX!, lockDurationMs: Number(env.KT_LOCK_MS ?? 1500), stalledIntervalMs: Number(env.KT_STALLED_MS ?? 500), device: env.KT_DEVICE ?? 'test-device',
  concurrency: Number(env.KT_CONCURRENCY ?? 1),
})
process.stdout.write(JSON.stringify({ id: w.id, device: w.device }) + '\n')
let closing = false
const stop = () => {
  if (closing) return
  closing = true
  void w.close().then(() => store.close()).then(() => process.exit(0))
}
process.once('SIGTERM', stop)
if (env.KT_EXIT_WITH_STDIN === '1') {
  process.stdin.on('data', () => {})
  process.stdin.once('close', stop)
}
