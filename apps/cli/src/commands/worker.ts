/**
 * kerneltune worker --redis URL --db URL: measures combinations that `kerneltune serve --redis`
 * dispatches, on this machine's device, until interrupted. Start one per device, on any machine
 * that reaches the Redis and the (shared PostgreSQL) store.
 */
import process from 'node:process'
import { KerneltuneError } from '@kerneltune/core'
import { defaultRegistry, openStoreAt } from '@kerneltune/compose/node'
import { startWorker } from '@kerneltune/server/node'
import { defineCommand } from '../cli/command.ts'
import { isSharedStoreUrl } from './serve.ts'

export const workerCommand = defineCommand({
  name: 'worker',
  summary: 'Measure combinations a `serve --redis` server dispatches (BullMQ)',
  description: 'Takes combination jobs from Redis and stores each result once in the shared store. The worker announces its device (from --device, else the backend); runs that require a device go only to workers announcing it. Stop it with SIGINT/SIGTERM: the jobs in hand finish first; a killed worker\'s jobs go to other workers once their lock expires.',
  flags: [
    { name: 'redis', type: 'string', description: 'Redis URL the server dispatches to (redis://host:6379)', valueName: 'URL' },
    { name: 'db', type: 'string', description: 'The store every worker and the server share (postgres:// URL)', valueName: 'URL' },
    { name: 'backend', type: 'string', description: 'Backend whose device this worker announces (default: the first real backend that finds one)', valueName: 'NAME' },
    { name: 'device', type: 'string', description: 'Device name to announce instead (e.g. "NVIDIA H100 80GB HBM3")', valueName: 'NAME' },
    { name: 'concurrency', type: 'integer', description: 'Jobs measured at once', default: 1, min: 1, max: 64 },
    { name: 'prefix', type: 'string', description: 'BullMQ key prefix (the server\'s)', default: 'kerneltune' },
  ] as const,
  examples: ['kerneltune worker --redis redis://queue-host:6379 --db postgres://kt@db-host/kerneltune', 'kerneltune worker --redis redis://queue-host:6379 --db postgres://kt@db-host/kerneltune --backend gpu-kernels --concurrency 1'],
  jsonOutput: '{ id, device, deviceFingerprint, queues } once taking jobs',
  async run(ctx) {
    const f = ctx.flags
    if (!f.redis) throw new KerneltuneError('INVALID_INPUT', '--redis URL is required: the Redis the server was started with (kerneltune serve --redis URL)')
    const db = f.db ?? ctx.io.env.KERNELTUNE_DATABASE_URL
    if (!db) throw new KerneltuneError('INVALID_INPUT', '--db URL is required (or KERNELTUNE_DATABASE_URL): the store the server uses, a postgres:// URL shared by all machines')
    // A SQLite file works for workers on the server's own machine only: say so rather than refuse.
    if (!isSharedStoreUrl(db)) ctx.io.stderr(`kerneltune worker: ${db} is not PostgreSQL; only processes on this machine share it with the server\n`)
    const store = await openStoreAt(db)
    const w = await startWorker({
      redisUrl: f.redis, store, registry: defaultRegistry(), concurrency: f.concurrency ?? 1, prefix: f.prefix ?? 'kerneltune',
      ...(f.backend ? { backend: f.backend } : {}), ...(f.device ? { device: f.device } : {}), log: (l) => ctx.io.stderr(l + '\n'),
    }).catch(async (e: unknown) => {
      await store.close()
      throw e
    })
    if (ctx.json) ctx.printJson({ id: w.id, device: w.device, deviceFingerprint: w.deviceFingerprint, queues: w.queues })
    else ctx.io.stderr(`kerneltune worker ${w.id}: measuring on ${w.device} (fingerprint ${w.deviceFingerprint})\n`)
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void w.close().then(() => store.close()).then(resolve))
    })
  },
})
