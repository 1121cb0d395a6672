/**
 * @module @kerneltune/server/node
 * Starts the server on Node with @hono/node-server: opens the store, mints the first admin token
 * on an empty store, recovers interrupted work, and pauses running jobs on SIGINT/SIGTERM.
 *
 * @example
 * ```ts
 * import { serve } from '@kerneltune/server/node'
 * const server = await serve({ port: 8080, databaseUrl: 'file:kerneltune.db' })
 * console.log(server.url)
 * ```
 */
import process from 'node:process'
import { serve as honoServe } from '@hono/node-server'
import { KerneltuneError, normaliseTenant, serverTimeouts, type HardwareSpec, type Registry } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import { bootstrapAdmin, createApp, recover, type App } from './app.ts'
import { compose } from '@kerneltune/compose/node'
import { modelDirectories } from './model-paths.node.ts'
import { createRedisQueue, type RedisJobQueue } from './distributed/redis-queue.ts'
import { withHotCache } from './distributed/hot-cache.ts'
import { checkMetricsExposure, legacyTenantNotes } from './guard.ts'
import { connect, DEFAULT_PREFIX } from './distributed/names.ts'
import type { QueueDeps } from './queue.ts'

export { modelDirectories } from './model-paths.node.ts'
export { startWorker, type RunningWorker, type WorkerOptions } from './distributed/worker.ts'
export { backendPlugins, compose, defaultDatabaseUrl, defaultRegistry, enginePlugins, ENGINE_NAMES, openStoreAt, type BackendOptions, type ComposeOptions, type Composition, type EngineName } from '@kerneltune/compose/node'

export interface ServeOptions {
  port?: number
  hostname?: string
  databaseUrl?: string
  store?: Store
  registry?: Registry
  env?: Readonly<Record<string, string | undefined>>
  log?: (line: string) => void
  /**
   * redis://… : runs are dispatched as BullMQ jobs to `kerneltune worker` processes (any machine
   * with this Redis and the same store) instead of measured in this process.
   */
  redisUrl?: string
  /** Prefix of the BullMQ keys (default 'kerneltune'); workers must use the same. */
  redisPrefix?: string
  /**
   * Connection timeouts in milliseconds (issue 23 item 19): a client gets `headersTimeoutMs`
   * (default 10 s) to send its request line and headers, `requestTimeoutMs` (default 60 s) for the
   * whole request, body included, and an idle keep-alive connection is closed after
   * `keepAliveTimeoutMs` (default 5 s). Responses (SSE streams) are not bounded by these.
   */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  keepAliveTimeoutMs?: number
  /** Bearer token for /metrics (default env KERNELTUNE_METRICS_TOKEN). */
  metricsToken?: string
  /** Serve /metrics without a token on a non-loopback address (default env KERNELTUNE_METRICS_PUBLIC=true; otherwise refused). */
  metricsPublic?: boolean
  /**
   * Directories whose GGUF files requests may name as modelPath (`serve --model-dir`). Default
   * none: a request that names a model file is refused (403), since the path is read on this machine.
   */
  modelDirs?: readonly string[]
}

/** The connection timeouts, shared with the gateway (core net.ts). */
export { DEFAULT_TIMEOUTS, serverTimeouts } from '@kerneltune/core'

export interface RunningServer {
  app: App
  url: string
  port: number
  store: Store
  /** The connection timeouts (ms) as Node's server holds them, read back from it. */
  timeouts: { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number }
  close(): Promise<void>
}

/** This machine's spec, detected once on first use (/options offers it beside the presets). */
function detectedHardware(): () => Promise<HardwareSpec | undefined> {
  let spec: Promise<HardwareSpec | undefined> | undefined
  return () => (spec ??= import('@kerneltune/features/node').then(({ detectHardware, specFromDetected }) => detectHardware().then(specFromDetected)).catch(() => undefined))
}

export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env
  const log = options.log ?? ((l: string) => void process.stderr.write(l + '\n'))
  // Checked before anything opens, so a refused start leaves nothing behind.
  const hostname = options.hostname ?? '127.0.0.1'
  const timeouts = serverTimeouts(options)
  const metricsToken = options.metricsToken ?? (env.KERNELTUNE_METRICS_TOKEN || undefined)
  checkMetricsExposure(hostname, metricsToken, options.metricsPublic ?? /^(true|1|yes|on)$/i.test(env.KERNELTUNE_METRICS_PUBLIC ?? ''))
  // Checked before the store opens: a mistyped --model-dir stops the start, naming the directory.
  const modelPaths = await modelDirectories(options.modelDirs ?? [])
  const composed = await compose({ ...(options.store ? { store: options.store } : {}), ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}), ...(options.registry ? { registry: options.registry } : {}), env })
  const store = composed.store
  const boot = await bootstrapAdmin(store, env).catch(async (e: unknown) => {
    if (!options.store) await store.close()
    throw e
  })
  if (boot.generated) log(`kerneltune: created the superadmin token (shown once, store it now): ${boot.generated}`)
  else if (boot.created) log('kerneltune: created the superadmin token from KERNELTUNE_ADMIN_TOKEN')
  for (const note of legacyTenantNotes((await store.tokens.list()).map((t) => t.tenant), normaliseTenant)) log(note)
  let redisQueue: RedisJobQueue | undefined
  // With Redis, the routes (admin cache flush included) see the hot cache in front of the store's.
  const hotRedis = options.redisUrl ? connect(options.redisUrl) : undefined
  const appStore = hotRedis ? withHotCache(store, hotRedis, options.redisPrefix ?? DEFAULT_PREFIX) : store
  const app = createApp({ store: appStore, registry: composed.registry, catalog: composed.catalog, env, log, modelPaths, localHardware: detectedHardware(), ...(metricsToken ? { metricsToken } : {}), ...(options.redisUrl ? { queueFactory: (d: QueueDeps) => (redisQueue = createRedisQueue(d, { redisUrl: options.redisUrl!, ...(options.redisPrefix ? { prefix: options.redisPrefix } : {}) })) } : {}) })
  const recovered = await recover(app)
  if (recovered.runs || recovered.sessions) log(`kerneltune: re-queued ${recovered.runs} interrupted run(s); paused ${recovered.sessions} interrupted tune session(s) (resume them with POST /tune/{id}/resume)`)
  const server = await new Promise<ReturnType<typeof honoServe>>((resolve) => {
    const s = honoServe({ fetch: app.app.fetch, port: options.port ?? 8080, hostname, serverOptions: timeouts }, () => resolve(s))
  })
  // Also as properties: older Node releases read keepAliveTimeout only from the server object.
  Object.assign(server, { headersTimeout: timeouts.headersTimeout, requestTimeout: timeouts.requestTimeout, keepAliveTimeout: timeouts.keepAliveTimeout })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port ?? 8080
  const url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`
  const held = server as unknown as RunningServer['timeouts']
  return {
    app, url, port, store,
    timeouts: { headersTimeout: held.headersTimeout, requestTimeout: held.requestTimeout, keepAliveTimeout: held.keepAliveTimeout },
    async close() {
      await app.shutdown()
      await redisQueue?.close()
      hotRedis?.disconnect()
      await new Promise<void>((r) => server.close(() => r()))
      if (!options.store) await store.close()
    },
  }
}

// `tsx apps/server/src/node.ts`: serve on $PORT (default 8080) until SIGINT/SIGTERM.
if (process.argv[1] && /[\\/]server[\\/]src[\\/]node\.ts$/.test(process.argv[1])) {
  const s = await serve({ port: Number(process.env.PORT ?? 8080) })
  process.stderr.write(`kerneltune server listening on ${s.url}\n`)
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void s.close().then(() => process.exit(0)))
}
