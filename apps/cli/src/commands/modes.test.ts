import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serve, type RunningServer } from '@kerneltune/server/node'
import { cli, SMALL_RUN, tempDir } from './run.test-helpers.ts'

// The same run and tune commands, embedded (the server app in-process) and against a server:
// the same statuses, the same JSON shapes, the same errors.
const t = tempDir('kt-modes-cli-')
const ADMIN = `admin-${Math.random().toString(36).slice(2)}-0123456789`
let server: RunningServer
const embedded = (...argv: string[]) => cli(t.dir, [...argv, '--db', join(t.dir, 'embedded.db'), '--json'])
const remote = (...argv: string[]) => cli(t.dir, [...argv, '--server', server.url, '--token', ADMIN, '--json'])
const keys = (o: unknown) => Object.keys(o as object).sort()

beforeAll(async () => {
  t.file('request.json', SMALL_RUN)
  server = await serve({ port: 0, databaseUrl: join(t.dir, 'server.db'), env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: () => {} })
})
afterAll(async () => {
  await server.close()
  rmSync(t.dir, { recursive: true, force: true })
})

describe('run and tune with and without --server', () => {
  it('should answer the same way in both modes', async () => {
    const out: Record<string, Record<string, any>> = {}
    for (const [mode, call] of [['embedded', embedded], ['server', remote]] as const) {
      const o: Record<string, any> = {}
      o.create = await call('run', 'create', 'request.json')
      const id = o.create.json.id
      o.list = await call('run', 'list')
      o.show = await call('run', 'show', id)
      o.watch = await call('run', 'watch', id)
      o.cancel = await call('run', 'cancel', id)
      o.apply = await call('run', 'apply', id)
      o.tune = await call('tune', 'start', id, '--trials', '2', '--strategy', 'random', '--keep', 'attention_backend,activation_dtype', '--seed', '1')
      o.resume = await call('tune', 'resume', o.tune.json.id)
      o.missing = await call('run', 'show', 'no-such-run')
      out[mode] = o
    }
    const [a, b] = [out.embedded!, out.server!]
    for (const k of Object.keys(a)) expect([k, a[k].code], `exit code of ${k}`).toEqual([k, b[k].code])
    expect([a.create.json.status, b.create.json.status]).toEqual(['succeeded', 'succeeded'])
    expect(keys(a.create.json)).toEqual(keys(b.create.json))
    expect(keys(a.list.json)).toEqual(keys(b.list.json))
    expect(a.show.json.combos.length).toBe(b.show.json.combos.length)
    expect(a.watch.json).toMatchObject({ type: 'run.finished', status: 'succeeded' })
    expect(keys(a.watch.json)).toEqual(keys(b.watch.json))
    expect([a.cancel.json.cancelled, b.cancel.json.cancelled]).toEqual([false, false])
    expect(a.apply.json.translation).toEqual(b.apply.json.translation)
    expect([a.tune.json.status, a.tune.json.trialsDone]).toEqual([b.tune.json.status, b.tune.json.trialsDone])
    expect(a.tune.json.trials.map((x: { config: unknown }) => x.config)).toEqual(b.tune.json.trials.map((x: { config: unknown }) => x.config))
    expect(a.resume.json.error.code).toBe(b.resume.json.error.code)
    expect(a.missing.json.error).toEqual(b.missing.json.error)
  }, 120_000)
})
