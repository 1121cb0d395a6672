/**
 * The server on Bun or Deno: the same Hono app handed to `Bun.serve` or `Deno.serve`.
 *
 *   bun apps/server/src/serve-web.ts
 *   deno run -A apps/server/src/serve-web.ts
 *
 * Reads PORT (default 8080; 0 picks a free port), HOST (default 127.0.0.1) and the same
 * KERNELTUNE_* variables as the Node entry, then prints `kerneltune server listening on URL` to
 * stderr. On SIGINT/SIGTERM running jobs are paused (resumable) and the store is closed.
 */
import process from 'node:process'
import { bootstrapAdmin, createApp, recover } from './app.ts'
import { compose } from '@kerneltune/compose/node'
import { checkMetricsExposure } from './guard.ts'

type Fetch = (req: Request) => Response | Promise<Response>
interface BunLike { serve(o: { port: number; hostname: string; fetch: Fetch }): { port: number; stop(): void } }
interface DenoLike { serve(o: { port: number; hostname: string; onListen?: (a: { port: number }) => void }, h: Fetch): { finished: Promise<void>; shutdown(): Promise<void> } }

/** Starts the server on the runtime it runs on; resolves with the URL and a close function. */
export async function serveWeb(env: Readonly<Record<string, string | undefined>> = process.env): Promise<{ url: string; runtime: 'bun' | 'deno'; close(): Promise<void> }> {
  const g = globalThis as { Bun?: BunLike; Deno?: DenoLike }
  if (!g.Bun && !g.Deno) throw new Error('serve-web.ts runs on Bun or Deno; on Node use @kerneltune/server/node (kerneltune serve)')
  // The same rule as the Node entry: /metrics open on a non-loopback HOST only when said so.
  checkMetricsExposure(env.HOST ?? '127.0.0.1', env.KERNELTUNE_METRICS_TOKEN || undefined, /^(true|1|yes|on)$/i.test(env.KERNELTUNE_METRICS_PUBLIC ?? ''))
  const { store, registry, catalog } = await compose({ env })
  const boot = await bootstrapAdmin(store, env)
  if (boot.generated) process.stderr.write(`kerneltune: created the superadmin token (shown once, store it now): ${boot.generated}\n`)
  const app = createApp({ store, registry, catalog, env })
  await recover(app)
  const hostname = env.HOST ?? '127.0.0.1'
  const wanted = Number(env.PORT ?? 8080)
  const fetch: Fetch = (req) => app.app.fetch(req)
  let port: number
  let stop: () => Promise<void>
  if (g.Bun) {
    const s = g.Bun.serve({ port: wanted, hostname, fetch })
    port = s.port
    stop = async () => s.stop()
  } else {
    let resolveListen!: (p: number) => void
    const listening = new Promise<number>((r) => (resolveListen = r))
    const s = g.Deno!.serve({ port: wanted, hostname, onListen: (a) => resolveListen(a.port) }, fetch)
    port = await listening
    stop = () => s.shutdown()
  }
  return {
    url: `http://${hostname}:${port}`,
    runtime: g.Bun ? 'bun' : 'deno',
    async close() {
      await app.shutdown()
      await stop()
      await store.close()
    },
  }
}

// Bun and Deno both set import.meta.main on the entry module (Node's types do not know it).
if ((import.meta as { main?: boolean }).main) {
  const s = await serveWeb()
  process.stderr.write(`kerneltune server listening on ${s.url} (${s.runtime})\n`)
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void s.close().then(() => process.exit(0)))
}
