import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import process from 'node:process'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { defaultRegistry } from '@kerneltune/compose/node'
import { serve } from '@kerneltune/server/node'
import type { Io } from '../cli/command.ts'
import { runCli } from '../cli/run.ts'
import { SMALL_RUN, tempDir } from './run.test-helpers.ts'
import { workerCommand } from './worker.ts'

const REDIS = process.env.KERNELTUNE_TEST_REDIS_URL
const PG = process.env.KERNELTUNE_TEST_PG_URL
const t = tempDir('kt-worker-cli-')

async function cli(cwd: string, argv: string[]) {
  const err: string[] = []
  const io: Io = { stdout: () => {}, stderr: (x) => void err.push(x), interactive: false, env: {}, cwd }
  const code = await runCli({ name: 'kerneltune', summary: 'root', subcommands: [workerCommand] }, argv, io)
  return { code, err: err.join('') }
}

describe('kerneltune worker', () => {
  it('should refuse to start without --redis or --db (exit 2, saying which)', async () => {
    const a = await cli(t.dir, ['worker', '--db', 'postgres://x/y'])
    expect(a.code).toBe(2)
    expect(a.err).toMatch(/--redis URL is required/)
    const b = await cli(t.dir, ['worker', '--redis', 'redis://127.0.0.1:1'])
    expect(b.code).toBe(2)
    expect(b.err).toMatch(/--db URL is required/)
  })

  const missing = requireOrSkip(Boolean(REDIS && PG), 'Redis and PostgreSQL: KERNELTUNE_TEST_REDIS_URL or KERNELTUNE_TEST_PG_URL is unset (tooling/scripts/start-test-redis.sh and start-test-postgres.sh)', { runtimes: ['node'] })
  it.skipIf(missing)('should measure the runs a `serve --redis` server dispatches and stop cleanly on SIGTERM', async () => {
    const prefix = `kt-cli-${randomUUID().slice(0, 8)}`
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', join(import.meta.dirname, '..', 'main.ts'), 'worker', '--redis', REDIS!, '--db', PG!, '--device', 'cli test device', '--prefix', prefix, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => { out += d.toString() })
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    const ADMIN = `admin-${randomUUID()}`
    const s = await serve({ port: 0, databaseUrl: PG!, redisUrl: REDIS!, redisPrefix: prefix, registry: defaultRegistry(), env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: () => {} })
    try {
      for (let i = 0; i < 900 && !out.trim().endsWith('}'); i++) await new Promise((r) => setTimeout(r, 100))
      const announced = JSON.parse(out) as { id: string; device: string; queues: string[] }
      expect(announced.device).toBe('cli test device')
      const token = (await s.store.tokens.create('operator', 'default')).token
      const created = await fetch(`${s.url}/api/v1/kernels/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(SMALL_RUN) }).then((r) => r.json()) as { id: string }
      let status = ''
      for (let i = 0; i < 600 && status !== 'succeeded' && status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 100))
        status = (await s.store.runs.require(null, created.id)).status
      }
      expect(status).toBe('succeeded')
      const combos = await s.store.runs.combos(created.id)
      expect(combos.every((c) => c.status === 'measured')).toBe(true)
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      child.kill('SIGKILL')
      await s.close()
    }
  }, 120_000)

  it.skipIf(missing)('should dispatch under serve --prefix to a worker with the same --prefix, both warning that a SQLite store is shared on this machine only', async () => {
    const prefix = `kt-cli-${randomUUID().slice(0, 8)}`
    const ADMIN = `admin-${randomUUID()}`
    const db = join(t.dir, `shared-${prefix}.db`)
    const main = join(import.meta.dirname, '..', 'main.ts')
    const start = (argv: string[], ready: RegExp) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', main, ...argv], { env: { ...process.env, KERNELTUNE_ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'] })
      const io = { out: '', err: '' }
      child.stdout!.on('data', (d: Buffer) => { io.out += d.toString() })
      child.stderr!.on('data', (d: Buffer) => { io.err += d.toString() })
      const up = new Promise<void>((ok, fail) => {
        child.stdout!.on('data', () => ready.test(io.out) && ok())
        child.once('exit', (code) => fail(new Error(`${argv[0]} exited ${code}: ${io.err}`)))
      })
      return { child, io, up }
    }
    const server = start(['serve', '--port', '0', '--db', db, '--redis', REDIS!, '--prefix', prefix, '--json'], /"url"/)
    try {
      await server.up
      const worker = start(['worker', '--redis', REDIS!, '--db', db, '--device', 'cli prefix device', '--prefix', prefix, '--json'], /"queues"/)
      try {
        await worker.up
        expect(server.io.err).toMatch(/--redis with a store that is not PostgreSQL/)
        expect(worker.io.err).toMatch(/is not PostgreSQL; only processes on this machine share it/)
        const url = (JSON.parse(server.io.out) as { url: string }).url
        const api = (path: string, init: RequestInit = {}) => fetch(`${url}/api/v1/kernels${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` } }).then((r) => r.json()) as Promise<Record<string, unknown>>
        const created = await api('/runs', { method: 'POST', body: JSON.stringify(SMALL_RUN) })
        let run: Record<string, unknown> = {}
        for (let i = 0; i < 600 && run.status !== 'succeeded' && run.status !== 'failed'; i++) {
          await new Promise((r) => setTimeout(r, 100))
          run = await api(`/runs/${created.id as string}`)
        }
        expect(run.status).toBe('succeeded')
        // Only the worker could have measured it (with --redis the server measures nothing), and it
        // listens under its own prefix: the server dispatched under the same one.
        expect(worker.io.err).toMatch(new RegExp(`run ${created.id as string} combination 0: stored`))
      } finally {
        worker.child.kill('SIGKILL')
      }
    } finally {
      server.child.kill('SIGKILL')
    }
  }, 120_000)
})
