/** kerneltune serve [--port P] [--db PATH] [--redis URL]: the HTTP API on 127.0.0.1 until interrupted. */
import process from 'node:process'
import { serve } from '@kerneltune/server/node'
import { defineCommand } from '../cli/command.ts'

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Serve the kernels API, /metrics and /openapi.json',
  flags: [{ name: 'port', type: 'integer', description: 'Port', default: 8080, min: 0, max: 65535 }, { name: 'db', type: 'string', description: 'SQLite path or postgres:// URL', valueName: 'PATH' }, { name: 'host', type: 'string', description: 'Address to listen on', default: '127.0.0.1' }, { name: 'redis', type: 'string', description: 'Dispatch runs as BullMQ jobs on this Redis to `kerneltune worker` processes (use a postgres:// --db they share)', valueName: 'URL' }] as const,
  jsonOutput: '{ url } once listening',
  async run(ctx) {
    const s = await serve({ port: ctx.flags.port, hostname: ctx.flags.host, ...(ctx.flags.db ? { databaseUrl: ctx.flags.db } : {}), ...(ctx.flags.redis ? { redisUrl: ctx.flags.redis } : {}), env: ctx.io.env, log: (l) => ctx.io.stderr(l + '\n') })
    if (ctx.json) ctx.printJson({ url: s.url })
    else ctx.io.stderr(`kerneltune serving on ${s.url}\n`)
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void s.close().then(resolve))
    })
  },
})
