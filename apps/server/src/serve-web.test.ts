import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { SMALL_RUN } from './test-helpers.ts'

// The unchanged server on Bun and Deno (serve-web.ts: app.fetch under Bun.serve / Deno.serve),
// each as a child process with a temporary SQLite store on 127.0.0.1 and a port the OS picks.
const ROOT = resolve(import.meta.dirname, '../../..')
const ENTRY = join(ROOT, 'apps/server/src/serve-web.ts')
const ADMIN = `admin-${Math.random().toString(36).slice(2)}-token`
const dir = mkdtempSync(join(tmpdir(), 'kt-serve-web-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// The executables themselves, not the node_modules/.bin wrappers: a wrapper (a shell script, or
// node for deno) would get the SIGTERM instead of the server.
const RUNTIMES = [
  { name: 'bun', bin: join(ROOT, 'node_modules/bun/bin/bun.exe'), args: [ENTRY] },
  { name: 'deno', bin: join(ROOT, 'node_modules/deno/deno'), args: ['run', '-A', ENTRY] },
]

for (const rt of RUNTIMES) {
  const missing = requireOrSkip(existsSync(rt.bin), `${rt.name} for the serve-web test: ${rt.bin} is missing (pnpm install)`)
  describe.skipIf(missing)(`the server on ${rt.name}`, () => {
    it('should serve /healthz, an authenticated run to the end, and /metrics, then stop on SIGTERM', async () => {
      const child = spawn(rt.bin, rt.args, {
        cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PORT: '0', KERNELTUNE_DATABASE_URL: join(dir, `${rt.name}.db`), KERNELTUNE_ADMIN_TOKEN: ADMIN },
      })
      let log = ''
      try {
        const url = await new Promise<string>((ok, fail) => {
          const on = (d: Buffer) => { log += d; const m = /listening on (http:\/\/127\.0\.0\.1:\d+) \((\w+)\)/.exec(log); if (m) ok(m[1]!) }
          child.stdout.on('data', on)
          child.stderr.on('data', on)
          child.once('exit', (code) => fail(new Error(`${rt.name} exited ${code}: ${log}`)))
        })
        expect(log).toContain(`(${rt.name})`)
        expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true })
        const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
        expect((await fetch(`${url}/api/v1/kernels/runs`)).status).toBe(401)
        const created = await fetch(`${url}/api/v1/kernels/runs`, { method: 'POST', headers: auth, body: JSON.stringify(SMALL_RUN) })
        expect(created.status).toBe(202)
        const { id } = (await created.json()) as { id: string }
        let run: { status: string } = { status: 'queued' }
        for (let i = 0; i < 200 && !['succeeded', 'failed', 'cancelled'].includes(run.status); i++) {
          await new Promise((r) => setTimeout(r, 50))
          run = (await (await fetch(`${url}/api/v1/kernels/runs/${id}`, { headers: auth })).json()) as { status: string }
        }
        expect(run.status).toBe('succeeded')
        const metrics = await (await fetch(`${url}/metrics`)).text()
        expect(metrics).toMatch(/kerneltune_l1_runs_total\{mode="quick",status="succeeded"\} 1/)
        expect(metrics).toMatch(/kerneltune_l1_combo_evaluations_total \d+/)
        const code = await new Promise<number | null>((ok) => { child.once('exit', ok); child.kill('SIGTERM') })
        expect(code).toBe(0)
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL')
      }
    }, 60_000)
  })
}
