import { describe, expect, it } from 'vitest'
import { API_BASE, createApp } from './app.ts'
import { compose } from '@kerneltune/compose/node'
import { inProcess } from './in-process.ts'
import { SMALL_RUN } from './test-helpers.ts'

describe('calling the app in-process', () => {
  const setup = async (autostart?: boolean) => {
    const c = await compose({ databaseUrl: ':memory:', env: {} })
    const app = createApp({ store: c.store, registry: c.registry, catalog: c.catalog, ...(autostart === undefined ? {} : { autostart }) })
    const as = inProcess({ role: 'operator', tenant: 'acme', tokenId: 'test' })
    const post = (path: string, body: unknown, bindings?: object) =>
      app.app.fetch(new Request(`http://x${API_BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), bindings)
    return { c, app, as, post }
  }

  it('should accept the in-process caller and nobody without a token, even with look-alike bindings', async () => {
    const { c, app, as, post } = await setup(false)
    try {
      const ok = await post('/runs', SMALL_RUN, as)
      expect(ok.status).toBe(202)
      expect(((await ok.json()) as { tenant: string }).tenant).toBe('acme')
      expect((await post('/runs', SMALL_RUN)).status).toBe(401)
      const forged = { [Symbol('kerneltune.in-process-auth')]: { role: 'admin', tenant: 'acme', tokenId: 'x' }, auth: { role: 'admin', tenant: 'acme' } }
      expect((await post('/runs', SMALL_RUN, forged)).status).toBe(401)
    } finally {
      await app.shutdown()
      await c.close()
    }
  })

  it('should leave queued work alone with autostart off until it is started, then run it to the end', async () => {
    const { c, app, as, post } = await setup(false)
    try {
      const run = (await (await post('/runs', SMALL_RUN, as)).json()) as { id: string }
      await new Promise((r) => setTimeout(r, 50))
      expect((await c.store.runs.require(null, run.id)).status).toBe('queued')
      expect(app.queue.counts()).toEqual({ waiting: 1, running: 0 })
      await app.queue.idle() // nothing started: idle at once
      app.queue.start('run', run.id)
      await new Promise((r) => setTimeout(r, 0))
      await app.queue.idle()
      expect((await c.store.runs.require(null, run.id)).status).toBe('succeeded')
    } finally {
      await app.shutdown()
      await c.close()
    }
  })

  it('should run queued work at once by default (autostart on), as the server does', async () => {
    const { c, app, as, post } = await setup()
    try {
      const run = (await (await post('/runs', SMALL_RUN, as)).json()) as { id: string }
      await new Promise((r) => setTimeout(r, 0))
      await app.queue.idle()
      expect((await c.store.runs.require(null, run.id)).status).toBe('succeeded')
    } finally {
      await app.shutdown()
      await c.close()
    }
  })
})
