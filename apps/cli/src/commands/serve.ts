/**
 * kerneltune serve [--port P] [--db PATH] [--host H] [--redis URL [--prefix P]] [timeouts]
 * [--metrics-token T | --metrics-public] [--model-dir DIR ...]: the HTTP API on 127.0.0.1 until
 * interrupted.
 */
import { resolve } from 'node:path'
import process from 'node:process'
import { serve } from '@kerneltune/server/node'
import { defineCommand } from '../cli/command.ts'

/** Whether workers on other machines can open this store: only a PostgreSQL URL (not a SQLite file). */
export const isSharedStoreUrl = (url: string | undefined): boolean => /^postgres(ql)?:\/\//i.test(url ?? '')

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Serve the kernels API, /metrics and /openapi.json',
  flags: [{ name: 'port', type: 'integer', description: 'Port', default: 8080, min: 0, max: 65535 }, { name: 'db', type: 'string', description: 'SQLite path or postgres:// URL', valueName: 'PATH' }, { name: 'host', type: 'string', description: 'Address to listen on', default: '127.0.0.1' }, { name: 'redis', type: 'string', description: 'Dispatch runs as BullMQ jobs on this Redis to `kerneltune worker` processes (use a postgres:// --db they share)', valueName: 'URL' }, { name: 'prefix', type: 'string', description: 'BullMQ key prefix with --redis (workers take the same --prefix)', default: 'kerneltune' },
    // Seconds on the command line (Node takes ms): a client that trickles its headers or body is cut off after these.
    { name: 'headers-timeout', type: 'number', description: 'Seconds a client has to send the request line and headers', default: 10, min: 0.1, max: 3600, valueName: 'S' },
    { name: 'request-timeout', type: 'number', description: 'Seconds a client has to send the whole request, body included (not the response: SSE streams stay open)', default: 60, min: 0.1, max: 3600, valueName: 'S' },
    { name: 'keep-alive-timeout', type: 'number', description: 'Seconds an idle keep-alive connection stays open', default: 5, min: 0.1, max: 3600, valueName: 'S' },
    { name: 'metrics-token', type: 'string', description: 'Bearer token /metrics requires (prefer KERNELTUNE_METRICS_TOKEN: a flag shows in ps); required on a non-loopback --host unless --metrics-public', valueName: 'TOKEN' },
    { name: 'metrics-public', type: 'boolean', description: 'Serve /metrics without a token on a non-loopback --host (it counts every tenant\'s runs)' },
    { name: 'model-dir', type: 'list', description: 'Let runs name GGUF files (modelPath) under this directory; repeatable. Default none: a run naming a model file is refused', valueName: 'DIR' }] as const,
  jsonOutput: '{ url } once listening',
  async run(ctx) {
    const f = ctx.flags
    const db = f.db ?? ctx.io.env.KERNELTUNE_DATABASE_URL
    if (f.redis && !isSharedStoreUrl(db)) ctx.io.stderr(`kerneltune: --redis with a store that is not PostgreSQL (${db ?? 'the default SQLite file'}): workers on other machines cannot open it; give the server and every worker the same postgres:// --db\n`)
    const ms = (s: number | undefined) => (s === undefined ? undefined : Math.round(s * 1000))
    const timeouts = { headersTimeoutMs: ms(f.headersTimeout), requestTimeoutMs: ms(f.requestTimeout), keepAliveTimeoutMs: ms(f.keepAliveTimeout) }
    const s = await serve({
      port: f.port, hostname: f.host, ...(f.db ? { databaseUrl: f.db } : {}), ...(f.redis ? { redisUrl: f.redis, redisPrefix: f.prefix ?? 'kerneltune' } : {}), env: ctx.io.env, log: (l) => ctx.io.stderr(l + '\n'),
      ...Object.fromEntries(Object.entries(timeouts).filter(([, v]) => v !== undefined)),
      ...(f.metricsToken ? { metricsToken: f.metricsToken } : {}), ...(f.metricsPublic ? { metricsPublic: true } : {}),
      ...(f.modelDir?.length ? { modelDirs: f.modelDir.map((d) => resolve(ctx.io.cwd, d)) } : {}),
    })
    if (ctx.json) ctx.printJson({ url: s.url })
    else ctx.io.stderr(`kerneltune serving on ${s.url}\n`)
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void s.close().then(resolve))
    })
  },
})
