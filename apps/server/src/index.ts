/**
 * @module @kerneltune/server
 * The kerneltune HTTP API as a Hono app: runs, tune sessions, registry, catalog preview,
 * deployments, tokens and the cache under /api/v1/kernels, plus /metrics and /openapi.json.
 * Runtime-neutral; `@kerneltune/server/node` starts it on Node.
 *
 * @example
 * ```ts
 * import { createApp } from '@kerneltune/server'
 * const { app } = createApp({ store, registry })
 * const res = await app.request('/openapi.json')
 * ```
 */
export { createApp, bootstrapAdmin, recover, API_BASE, ROUTES, type App, type AppOptions } from './app.ts'
export { roleAllows, type Auth, type Route, type RouteSpec } from './http.ts'
export { inProcess, type InProcessBindings } from './in-process.ts'
export { openApiDocument } from './openapi.ts'
export { createMetrics, type ServerMetrics } from './metrics.ts'
export { createQueue, type JobQueue } from './queue.ts'
export { createBus, type EventBus } from './bus.ts'
export type { AppDeps } from './deps.ts'
export { noModelPaths, type ModelPaths } from './model-paths.ts'
