import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import process from 'node:process'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { defaultRegistry, serve } from '@kerneltune/server/node'
import type { Io } from '../cli/command.ts'
import { runCli } from '../cli/run.ts'
import { SMALL_RUN, tempDir } from './run-test-helpers.ts'
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
})
