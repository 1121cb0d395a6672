import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultRegistry as serverRegistry, ENGINE_NAMES } from '@kerneltune/compose/node'
import { embedded, routePath } from './store-location.ts'
import { SMALL_RUN, tempDir } from './commands/run.test-helpers.ts'

// The embedded mode is the server app called in-process: the same routes answer with and without --server.
const t = tempDir('kt-embedded-')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('the embedded client', () => {
  it('should see the same engines as the server, each registered once', async () => {
    const c = await embedded(join(t.dir, 'a.db'), 'default')
    try {
      const names = c.app.deps.registry.list('engine').map((e) => e.name)
      expect(names).toEqual([...ENGINE_NAMES])
      expect(names).toEqual(serverRegistry().list('engine').map((e) => e.name))
      expect(c.app.deps.registry.list('measurement-backend').map((b) => b.name)).toEqual(serverRegistry().list('measurement-backend').map((b) => b.name))
    } finally {
      await c.close()
    }
  })

  it('should answer with the server routes: their shapes, their validation, their 404s', async () => {
    const c = await embedded(join(t.dir, 'b.db'), 'acme')
    try {
      const run = await c.call('POST /runs', { body: SMALL_RUN })
      expect(run).toMatchObject({ status: 'queued', tenant: 'acme' })
      // The list route pages (limit, offset); the store alone does not say them.
      expect(await c.call('GET /runs')).toMatchObject({ total: 1, limit: 50, offset: 0 })
      await expect(c.send('POST', '/runs', { ...SMALL_RUN, repetitions: 'many' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^400: invalid body/) })
      await expect(c.send('GET', '/no-such-route')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/see \/openapi\.json/) })
      // Following the run runs it here, to the end.
      const events: string[] = []
      await c.follow('runs', run.id, (e) => events.push(e.type))
      expect(events[0]).toBe('state')
      expect(events.at(-1)).toBe('run.finished')
      expect((await c.call('GET /runs/{id}', { params: { id: run.id } })).status).toBe('succeeded')
      // A query names only what is set; a path parameter is encoded.
      expect((await c.call('GET /registry', { query: { status: undefined } })).items).toEqual([])
      // Encoded, 'a/b c' reaches the audit route as one id (which it refuses), not another route.
      await expect(c.call('GET /registry/{id}/audit', { params: { id: 'a/b c' } })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^400: invalid path: id/) })
      await expect(c.call('GET /registry/{id}/audit', { params: { id: 'k0' } })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    } finally {
      await c.close()
    }
  })
})

describe('routePath', () => {
  it('should fill a route\'s parameters (encoded) and append the query it is given, leaving out what is unset', () => {
    expect(routePath('GET /runs/{id}/combos', { id: 'a b/c' })).toEqual({ method: 'GET', path: '/runs/a%20b%2Fc/combos' })
    expect(routePath('GET /tokens/audit', {}, { tenant: 'acme', tokenId: undefined })).toEqual({ method: 'GET', path: '/tokens/audit?tenant=acme' })
    expect(routePath('GET /runs')).toEqual({ method: 'GET', path: '/runs' })
    expect(() => routePath('DELETE /tokens/{id}', {})).toThrow(/needs its id parameter/)
  })
})
