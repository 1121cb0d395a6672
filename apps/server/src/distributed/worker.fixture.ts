/**
 * A worker process for the distributed tests: the default plugins, the analytical backend waiting
 * KT_DELAY_MS per measurement (so the test can kill it mid-measurement), short job locks so a
 * killed worker's job is retried within seconds. Prints `{"id": …}` once it takes jobs.
 */
import process from 'node:process'
import { openStore } from '@kerneltune/store'
import { defaultRegistry } from '../compose.node.ts'
import { startWorker } from './worker.ts'

const env = process.env
const store = await openStore(env.KT_DB!)
const w = await startWorker({
  redisUrl: env.KT_REDIS!, store, registry: defaultRegistry({ analytical: { delayMs: Number(env.KT_DELAY_MS ?? 0) } }),
  prefix: env.KT_PREFIX!, lockDurationMs: 1500, stalledIntervalMs: 500, device: env.KT_DEVICE ?? 'test-device',
  concurrency: Number(env.KT_CONCURRENCY ?? 1),
})
process.stdout.write(JSON.stringify({ id: w.id, device: w.device }) + '\n')
process.once('SIGTERM', () => void w.close().then(() => store.close()).then(() => process.exit(0)))
