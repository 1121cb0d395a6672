/**
 * The real thing, for the browser suite: the kerneltune server (apps/server, Node entry) on a
 * loopback port with a fresh SQLite store, and Debian's chromium driven by playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AxeBuilder } from '@axe-core/playwright'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'

export const CHROMIUM = process.env.KERNELTUNE_CHROMIUM ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const TOKEN = 'dashboard-suite-admin-token-0123456789'
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
export const ARTIFACTS = join(ROOT, 'apps/web/test-output')

export interface Server { url: string; /** The server's store (the gateway writes there directly, as `kerneltune gateway --db` does). */ databaseUrl: string; close(): Promise<void>; api<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> }

export async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'kerneltune-web-'))
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@kerneltune/source', '--import', 'tsx', join(ROOT, 'apps/server/src/node.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', KERNELTUNE_DATABASE_URL: `file:${join(dir, 'k.db')}`, KERNELTUNE_ADMIN_TOKEN: TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the server did not start in 90 s:\n${log}`)), 90_000)
    child.stderr!.on('data', (b: Buffer) => {
      log += b.toString()
      const m = /listening on (http:\/\/\S+)/.exec(log)
      if (m) { clearTimeout(t); resolve(m[1]!) }
    })
    child.once('exit', (code) => { clearTimeout(t); reject(new Error(`the server exited (${code}):\n${log}`)) })
  })
  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const res = await fetch(url + '/api/v1/kernels' + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${TOKEN}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    })
    const json = await res.json() as T
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  return {
    url, api, databaseUrl: `file:${join(dir, 'k.db')}`,
    async close() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

/**
 * Per page, what the browser refused under the server's Content-Security-Policy (issue 23 item
 * 19): the suite fails a page that needed something the policy blocks.
 */
export const cspViolations: WeakMap<Page, string[]> = new WeakMap()

/** A signed-in page: the token arrives in the fragment, as an operator's link would carry it. */
export async function open(browser: Browser, server: Server, query = ''): Promise<Page> {
  // A context of its own per page (axe-core needs one), closed with the page.
  const context = await browser.newContext()
  const page = await context.newPage()
  page.once('close', () => void context.close().catch(() => undefined))
  const refused: string[] = []
  cspViolations.set(page, refused)
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) refused.push(m.text()) })
  await page.goto(`${server.url}/${query}#token=${TOKEN}`)
  return page
}

/** Keeps a screenshot of a failed test's page (test-output/NAME.png). */
export async function keepScreenshot(page: Page | undefined, name: string): Promise<void> {
  if (!page || page.isClosed()) return
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: join(ARTIFACTS, name.replace(/[^\w-]+/g, '_') + '.png'), fullPage: true }).catch(() => undefined)
}

export const H100 = { id: 'h100-sxm', name: 'H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989 }
export const MODEL = { name: 'llama-3-8b', paramsB: 8, quant: 'F16' }

/** A small run (one value per dimension, from the preview's first legal combination): seconds, not minutes. */
export async function tinyRun(server: Server, engine: string): Promise<string> {
  const p = await server.api<{ legal: Array<{ combo: Record<string, string> }> }>(`/catalog/preview?engine=${engine}&mode=quick&hardware=${encodeURIComponent(JSON.stringify(H100))}`)
  const combo = p.legal[0]!.combo
  const restrict = Object.fromEntries(Object.entries(combo).map(([k, v]) => [k, [v]]))
  const run = await server.api<{ id: string }>('/runs', { method: 'POST', body: { engine, hardware: H100, model: MODEL, restrict, baseline: combo, repetitions: 2, warmups: 0 } })
  return run.id
}

export async function waitFor<T>(f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('waitFor: timed out')
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** axe-core's serious and critical violations on the page, in words (the accessibility suite's bar). */
export async function serious(p: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page: p }).analyze()
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.html})`)
}

/**
 * The hooks every browser suite registers: one server and one chromium for the suite, a
 * screenshot of a failed test's page, and after each test the check that the page needed nothing
 * the server's Content-Security-Policy blocks. The suite keeps its own `page` (tests open it).
 */
export function browserHooks(o: { started(server: Server, browser: Browser): void; page(): Page | undefined; pageClosed(): void }): void {
  let server: Server | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launch()])
    o.started(server, browser)
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  afterEach(async (ctx) => {
    const page = o.page()
    if (ctx.task.result?.state === 'fail') await keepScreenshot(page, ctx.task.name)
    const refused = page ? cspViolations.get(page) ?? [] : []
    await page?.close()
    o.pageClosed()
    expect(refused, 'the page needed something the server\'s Content-Security-Policy blocks').toEqual([])
  })
}
