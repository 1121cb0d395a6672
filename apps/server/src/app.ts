/**
 * createApp: the Hono application. It runs unchanged on Node (@hono/node-server), Bun
 * (`Bun.serve({ fetch: app.fetch })`) and Deno (`Deno.serve(app.fetch)`), and in tests through
 * `app.request()`. Everything under /api/v1/kernels needs a bearer token; /metrics only when a
 * metrics token is set; /openapi.json and /healthz never.
 */
import { buildCatalog, type Catalog } from '@kerneltune/catalog'
import { KerneltuneError, parseWith, TenantNameSchema, type HardwareSpec, type Registry } from '@kerneltune/core'
import { generateToken, type Store } from '@kerneltune/store'
import process from 'node:process'
import { Hono, type Context } from 'hono'
import { createBus, type EventBus } from './bus.ts'
import { mountDashboard } from './dashboard.node.ts'
import type { AppDeps } from './deps.ts'
import { checkMetricsToken, requestContext } from './guard.ts'
import { errorResponse, mount, type Auth } from './http.ts'
import { inProcessAuth } from './in-process.ts'
import { createMetrics, type ServerMetrics } from './metrics.ts'
import { noModelPaths, type ModelPaths } from './model-paths.ts'
import { onnxModelCache } from './onnx-models.node.ts'
import type { OnnxModels } from './onnx-models.ts'
import { createOpsMetrics } from './ops-metrics.ts'
import { openApiDocument } from './openapi.ts'
import { createQueue, type JobQueue, type QueueDeps } from './queue.ts'
import { clientMetricRoutes } from './routes/client-metrics.ts'
import { optionRoutes } from './routes/options.ts'
import { otherRoutes } from './routes/other.ts'
import { runRoutes } from './routes/runs.ts'
import { tokenRoutes } from './routes/tokens.ts'
import { tuneRoutes } from './routes/tune.ts'

export const API_BASE = '/api/v1/kernels'
export const ROUTES = [...runRoutes, ...tuneRoutes, ...otherRoutes, ...optionRoutes, ...tokenRoutes, ...clientMetricRoutes]

export interface AppOptions {
  store: Store
  /** Engine, measurement-backend and search-strategy plugins. */
  registry: Registry
  catalog?: Catalog
  /**
   * Environment: ENABLE_KERNEL_TUNING, and KERNELTUNE_SHARED_CACHE=true to let one tenant's cached
   * measurements answer another's runs (off by default; runs say when it is on). Defaults to none.
   */
  env?: Readonly<Record<string, string | undefined>>
  concurrency?: number
  /**
   * False: queued runs and sessions wait until `queue.start(kind, id)`. The CLI's embedded mode,
   * which calls this app in-process, sets it: work runs while a command follows it. Default true.
   */
  autostart?: boolean
  /** Largest request body in bytes (default 2 MiB); a larger one is answered 413. */
  maxBodyBytes?: number
  /** False: no web dashboard at `/` (default: served when apps/web has been built). */
  dashboard?: boolean
  /**
   * Builds the job queue from the app's parts; default the in-process queue. `serve --redis` passes
   * the BullMQ one (distributed/redis-queue.ts), which has the same interface.
   */
  queueFactory?: (deps: QueueDeps) => JobQueue
  /** Where unexpected errors (500s) are logged, with their request id (default console.error). */
  log?: (line: string) => void
  /**
   * A bearer token /metrics then requires (default env KERNELTUNE_METRICS_TOKEN; none: open, as
   * suits a loopback listener; node.ts refuses a non-loopback one without it).
   */
  metricsToken?: string
  /** The directories whose GGUFs network requests may name (model-paths.node.ts); default none. */
  modelPaths?: ModelPaths
  /** Where ONNX decoders named by shape are synthesized; default the cache folder of `kerneltune sweep --engine onnx` (onnx-models.node.ts). */
  onnxModels?: OnnxModels
  /** This machine as a hardware spec, offered by /options beside the presets (node.ts detects it). */
  localHardware?: () => Promise<HardwareSpec | undefined>
}

export interface App {
  app: Hono
  deps: AppDeps
  queue: JobQueue
  bus: EventBus
  metrics: ServerMetrics
  /** Pauses running jobs (resumable) and closes nothing else. */
  shutdown(): Promise<void>
}

const disabled = (env: AppOptions['env']) => /^(false|0|no|off)$/i.test(env?.ENABLE_KERNEL_TUNING ?? '')

export function createApp(options: AppOptions): App {
  const { store, registry } = options
  const catalog = options.catalog ?? buildCatalog(registry)
  const bus = createBus()
  const metrics = createMetrics(store)
  const cacheScope = /^(true|1|yes|on)$/i.test(options.env?.KERNELTUNE_SHARED_CACHE ?? '') ? 'shared' : 'tenant'
  const queueDeps: QueueDeps = { store, registry, catalog, bus, metrics, cacheScope, ...(options.concurrency ? { concurrency: options.concurrency } : {}), ...(options.autostart === false ? { autostart: false } : {}) }
  const queue = options.queueFactory ? options.queueFactory(queueDeps) : createQueue(queueDeps)
  const ops = createOpsMetrics(metrics.registry, store, queue)
  const deps: AppDeps = { store, registry, catalog, queue, bus, metrics, ops, modelPaths: options.modelPaths ?? noModelPaths, onnxModels: options.onnxModels ?? onnxModelCache(options.env ?? process.env), ...(options.localHardware ? { localHardware: options.localHardware } : {}) }
  const app = new Hono()
  const metricsToken = options.metricsToken ?? (options.env?.KERNELTUNE_METRICS_TOKEN || undefined)
  app.use('*', requestContext(options.log ?? ((l) => console.error(l))))

  // Every answer, errors included, by matched route pattern (not the raw path, which carries ids).
  app.use('*', async (c, next) => {
    await next()
    ops.httpRequests.inc({ method: c.req.method, route: c.req.routePath, status: String(c.res.status) })
  })

  app.get('/healthz', (c) => c.json({ ok: true }))
  app.get('/openapi.json', (c) => c.json(openApiDocument(API_BASE, ROUTES)))
  app.get('/metrics', async (c) => {
    checkMetricsToken(c, metricsToken)
    return c.text(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType })
  })

  app.use(`${API_BASE}/*`, async (c, next) => {
    if (disabled(options.env)) {
      return errorResponse(c, new KerneltuneError('FEATURE_DISABLED', 'kernel tuning is turned off on this server (ENABLE_KERNEL_TUNING=false); unset it or set it to true to enable the API'))
    }
    return next()
  })

  const authenticate = async (c: Context): Promise<Auth> => {
    const local = inProcessAuth(c.env)
    if (local) return local
    const header = c.req.header('authorization') ?? ''
    const m = /^Bearer\s+(\S+)$/i.exec(header)
    if (!m) throw new KerneltuneError('UNAUTHORIZED', 'send an API token as "Authorization: Bearer TOKEN" (admins mint them with kerneltune token create)')
    const info = m[1]!.length >= 16 && m[1]!.length <= 512 ? await store.tokens.verify(m[1]!) : undefined
    if (!info) throw new KerneltuneError('UNAUTHORIZED', 'unknown, revoked or expired API token; ask an admin for a new one (kerneltune token create)')
    return { role: info.role, tenant: info.tenant, tokenId: info.id }
  }
  mount(app, API_BASE, ROUTES, deps, authenticate, options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {})
  // The web dashboard at / (same origin as the API; it reads nothing but the routes above).
  if (options.dashboard !== false) mountDashboard(app)
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `no endpoint ${c.req.method} ${c.req.path}; see /openapi.json` } }, 404))
  app.onError((err, c) => errorResponse(c, err))
  return { app, deps, queue, bus, metrics, shutdown: () => queue.shutdown() }
}

/**
 * First start with an empty token table: stores the superadmin token (KERNELTUNE_ADMIN_TOKEN when
 * set, otherwise a generated one) and returns it when it was generated, so the caller prints it
 * once. A KERNELTUNE_ADMIN_TOKEN that is set but unusable is refused on every start, by name.
 */
export async function bootstrapAdmin(store: Store, env: Readonly<Record<string, string | undefined>> = {}): Promise<{ created: boolean; generated?: string }> {
  const given = env.KERNELTUNE_ADMIN_TOKEN
  if (given !== undefined && given !== '' && (given.length < 16 || given.length > 512 || /\s/.test(given))) {
    throw new KerneltuneError('INVALID_INPUT', `KERNELTUNE_ADMIN_TOKEN must be 16 to 512 characters without spaces (it has ${given.length}${/\s/.test(given) ? ', with whitespace' : ''}); set a longer one, e.g. KERNELTUNE_ADMIN_TOKEN=$(openssl rand -hex 32), or unset it to have one generated`)
  }
  // Checked on every start, like the token: a tenant the API would refuse (`..`) is refused here too.
  const tenant = parseWith(TenantNameSchema, env.KERNELTUNE_ADMIN_TENANT ?? 'default', 'KERNELTUNE_ADMIN_TENANT')
  if ((await store.tokens.count()) > 0) return { created: false }
  const token = given && given.length > 0 ? given : generateToken()
  await store.tokens.create('superadmin', tenant, 'bootstrap admin', token)
  return given ? { created: true } : { created: true, generated: token }
}

/**
 * After a crash: runs left queued or running are queued again (they continue with the
 * combinations still pending); tune sessions left running are marked paused, to be resumed.
 */
export async function recover(app: App): Promise<{ runs: number; sessions: number }> {
  const { store, queue } = app.deps
  let runs = 0
  for (const status of ['running', 'queued'] as const) {
    for (let offset = 0; ; offset += 200) {
      const { items } = await store.runs.list(null, { status, limit: 200, offset })
      for (const r of items) (queue.enqueue('run', r.id), runs++)
      if (items.length < 200) break
    }
  }
  let sessions = 0
  for (let offset = 0; ; offset += 200) {
    const items = await store.tune.list(null, 200, offset)
    for (const s of items) if (s.status === 'running') (await store.tune.setStatus(s.id, 'paused'), sessions++)
    if (items.length < 200) break
  }
  return { runs, sessions }
}
