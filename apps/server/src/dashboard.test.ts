import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { mountDashboard } from './dashboard.node.ts'

describe('the dashboard route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kt-dash-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>kerneltune</title>')
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)')
  writeFileSync(join(dir, 'secret.txt'), 'no')
  const app = new Hono()
  mountDashboard(app, dir)

  it('serves the page at / (not cached) and hashed assets (cached for good)', async () => {
    const page = await app.request('/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('cache-control')).toBe('no-cache')
    const js = await app.request('/assets/index-abc.js')
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(js.headers.get('cache-control')).toMatch(/immutable/)
  })

  it('serves nothing outside assets/', async () => {
    expect((await app.request('/assets/..%2Fsecret.txt')).status).toBe(404)
    expect((await app.request('/assets/missing.js')).status).toBe(404)
  })

  it('says how to build it when it was not built', async () => {
    const bare = new Hono()
    expect(mountDashboard(bare, null)).toBe(false)
    const res = await bare.request('/')
    expect(res.status).toBe(503)
    expect(await res.text()).toMatch(/pnpm --filter @kerneltune\/web build/)
  })
})
