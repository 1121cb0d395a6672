/**
 * Serves the web dashboard (apps/web's Vite build) at `/`, from the same origin as the API, so the
 * page needs no CORS and no second server. The assets are looked up at run time: `dist/web` next
 * to the built server (the published package; its build copies them there), else the workspace's
 * `apps/web/dist` (source runs, `kerneltune serve` from a clone, where pnpm install builds them).
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Hono } from 'hono'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.map': 'application/json',
}

/** The folder holding the dashboard's index.html, or undefined when it has not been built. */
export function dashboardDir(): string | undefined {
  const candidates = [new URL('./web/', import.meta.url), new URL('../../web/dist/', import.meta.url)].map((u) => fileURLToPath(u))
  return candidates.find((d) => existsSync(join(d, 'index.html')))
}

export function mountDashboard(app: Hono, dir: string | null = dashboardDir() ?? null): boolean {
  if (!dir) {
    app.get('/', (c) => c.text('The dashboard is not built: run `pnpm --filter @kerneltune/web build` (pnpm install does it) and restart.', 503))
    return false
  }
  const send = async (file: string, immutable: boolean) => {
    const body = await readFile(file)
    // Hashed asset names change with their content, so they may be cached for good; the page may not.
    return new Response(body, { headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache' } })
  }
  const index = join(dir, 'index.html')
  app.get('/', () => send(index, false))
  app.get('/assets/*', async (c) => {
    const file = normalize(join(dir, c.req.path))
    if (!file.startsWith(join(dir, 'assets') + sep) || !existsSync(file)) return c.json({ error: { code: 'NOT_FOUND', message: `no dashboard asset ${c.req.path}` } }, 404)
    return send(file, true)
  })
  return true
}
