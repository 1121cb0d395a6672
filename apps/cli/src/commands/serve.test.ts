import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MeasurementBackend } from '@kerneltune/core'
import { defaultRegistry } from '@kerneltune/compose/node'
import { serve, type RunningServer } from '@kerneltune/server/node'
import { runMain } from '../cli/testing.ts'
import type { ApplyResult, RunDetail, RunList, TokenCreated, TokenList, TuneSessionDetail } from '@kerneltune/web/api-types'
import type { ShowOutput } from './run.ts'
import { cli, SMALL_RUN, tempDir, translated, type CliFailure } from './run.test-helpers.ts'

// run, tune and token against a server (started in process on 127.0.0.1, port 0) with --server
// URL --token T; and `kerneltune serve` itself as a child process.
const t = tempDir('kt-serve-cli-')
// At least 16 characters always: Math.random().toString(36) is sometimes short, and a 15-character
// token was once refused at start-up (KERNELTUNE_ADMIN_TOKEN must be 16 to 512 characters).
const ADMIN = `admin-${globalThis.crypto.randomUUID()}`
let server: RunningServer
let url: string
let operator: string
const remote = <T = RunDetail>(...argv: string[]) => cli<T>(t.dir, [...argv, '--server', url, '--token', operator, '--json'])

/** A backend whose measurements wait until the run is cancelled: a run that is surely still running. */
const stalled: MeasurementBackend = {
  name: 'stalled', kind: 'measurement-backend', apiVersion: 1, description: 'waits for the abort signal', simulated: true,
  measure: (req) => new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
}

/** A real backend that stands in for the engine and the device (as gpu-kernels does), exercising matmul_path only. */
const proxy: MeasurementBackend = {
  name: 'proxy-fake', kind: 'measurement-backend', apiVersion: 1, description: 'a stand-in', simulated: false,
  proxy: { engine: true, device: true, runs: 'fake GEMVs' }, exercises: ['matmul_path'], equivalentValues: { matmul_path: [['cutlass', 'machete']] }, device: async () => 'fake device',
  measure: async (req) => {
    const latencyMs = req.combo.matmul_path === 'cutlass' ? 5 : 10
    return { backend: 'proxy-fake', simulated: false, device: 'fake device', repetitions: Array.from({ length: req.repetitions }, () => ({ latencyMs, throughputTps: 1000 / latencyMs })) }
  },
}

beforeAll(async () => {
  server = await serve({ port: 0, databaseUrl: join(t.dir, 'server.db'), registry: defaultRegistry({ extra: [stalled, proxy] }), env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: () => {} })
  url = server.url
  t.file('request.json', SMALL_RUN)
  t.file('stalled.json', { ...SMALL_RUN, backend: 'stalled' })
  t.file('proxy.json', { ...SMALL_RUN, backend: 'proxy-fake', qualityGate: 'manual', restrict: { ...SMALL_RUN.restrict, matmul_path: ['cublas', 'cutlass'] } })
})
afterAll(async () => {
  await server.close()
  rmSync(t.dir, { recursive: true, force: true })
})

describe('run, tune and token against a server', () => {
  let runId: string
  it('should mint an operator token with the admin token', async () => {
    const r = await cli<TokenCreated>(t.dir, ['token', 'create', '--role', 'operator', '--tenant', 'default', '--server', url, '--token', ADMIN, '--json'])
    expect(r.code).toBe(0)
    expect(r.json).toMatchObject({ role: 'operator', tenant: 'default' })
    operator = r.json.token
    const denied = await cli(t.dir, ['token', 'create', '--role', 'admin', '--server', url, '--token', operator])
    expect(denied.code).toBe(1)
    expect(denied.err).toMatch(/403/)
  })

  it('should list tokens (no secrets) and revoke one over HTTP, after which the server refuses it', async () => {
    const spare = await cli<TokenCreated>(t.dir, ['token', 'create', '--role', 'viewer', '--acts-for', (await cli<TokenList>(t.dir, ['token', 'list', '--server', url, '--token', ADMIN, '--json'])).json.items[0]!.id, '--expires', '1d', '--server', url, '--token', ADMIN, '--json'])
    expect(spare.json).toMatchObject({ role: 'viewer', status: 'active', actsFor: expect.any(String) })
    const all = await cli<TokenList>(t.dir, ['token', 'list', '--all-tenants', '--server', url, '--token', ADMIN, '--json'])
    expect(all.json.items.find((x) => x.id === spare.json.id)).toMatchObject({ mintedBy: all.json.items.find((x) => x.role === 'superadmin')?.id })
    expect(all.out).not.toContain(spare.json.token)
    expect((await cli(t.dir, ['token', 'revoke', spare.json.id, '--server', url, '--token', ADMIN, '--json'])).json.status).toBe('revoked')
    const refused = await cli(t.dir, ['run', 'list', '--server', url, '--token', spare.json.token])
    expect([refused.code, /401/.test(refused.err)]).toEqual([1, true])
  })

  it('should create a run, follow it over SSE to the end, list, show, watch and apply it', async () => {
    const created = await remote('run', 'create', 'request.json')
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({ status: 'succeeded', backend: 'analytical' })
    runId = created.json.id
    expect((await remote<RunList>('run', 'list')).json.items.map((r) => r.id)).toContain(runId)
    const show = (await remote<ShowOutput>('run', 'show', runId)).json
    expect(show.combos).toHaveLength(created.json.progress.total)
    const watch = await remote('run', 'watch', runId)
    expect(watch.code).toBe(0)
    expect(watch.json).toMatchObject({ status: 'succeeded' })
    const apply = await remote<ApplyResult>('run', 'apply', runId)
    // The winner lists what the analytical backend models (activation_dtype); apply fills in the rest.
    expect(apply.json.combo).toMatchObject(created.json.summary?.winner?.combo ?? {})
    expect(created.json.summary?.notMeasured).toContain('attention_backend')
    expect(translated(apply.json.translation).argv.length).toBeGreaterThan(0)
  })

  it('should label a proxy run next to its numbers and its winner, leave unmeasured dimensions out, and warn on apply', async () => {
    const human = await cli(t.dir, ['run', 'create', 'proxy.json', '--server', url, '--token', operator])
    expect(human.code, human.err + human.out).toBe(0)
    expect(human.out).toMatch(/numbers\s+PROXY: fake GEMVs on fake device, standing in for engine vllm \S+ on NVIDIA H100 SXM/)
    expect(human.out).toMatch(/not measured\s+activation_dtype, attention_backend, cuda_graph, fusion_strategy, kv_layout/)
    // The manual gate decides nothing by itself: the one verdict keeps the defaults until someone
    // applies the candidate, which is shown with its proxy label (issue 34 item 11).
    expect(human.out).toMatch(/verdict\s+Best candidate #\d+ awaits review \(manual gate\)/)
    expect(human.out).toMatch(/winner\s+none: the defaults stay/)
    expect(human.out).toMatch(/not applied\s+#\d+ \{"matmul_path":"cutlass"\} \[PROXY: fake GEMVs on fake device/)
    expect(human.out).toMatch(/not told apart\s+matmul_path=cutlass ran the same work as machete/)
    const id = /id\s+(\S+)/.exec(human.out)![1]!
    const json = (await remote<ShowOutput>('run', 'show', id)).json
    expect(json.run.summary?.proxy).toMatchObject({ on: 'fake GEMVs on fake device', engine: true, device: true })
    expect(json.run.summary?.winner).toMatchObject({ combo: { matmul_path: 'cutlass' }, proxy: json.run.summary?.proxy })
    expect(json.combos.every((c) => JSON.stringify(c.proxy) === JSON.stringify(json.run.summary?.proxy))).toBe(true)
    const shown = await cli(t.dir, ['run', 'show', id, '--server', url, '--token', operator])
    expect(shown.out).toMatch(/measured as/)
    expect(shown.out.match(/proxy \(engine\+device\)/g)).toHaveLength(json.combos.length)
    const apply = await cli(t.dir, ['run', 'apply', id, '--force', '--server', url, '--token', operator])
    expect(apply.code, apply.err).toBe(0)
    expect(apply.err).toMatch(/warning: the winner was not measured on the engine/)
    expect((await remote<ApplyResult>('run', 'apply', id, '--force')).json.warnings.length).toBe(2)
  })

  it('should cancel a running run and a queued one', async () => {
    const running = await remote('run', 'create', 'stalled.json', '--no-watch')
    const queued = await remote('run', 'create', 'stalled.json', '--no-watch')
    // The queue runs one job at a time: the first stalls (running, or about to start), the second waits.
    expect(['queued', 'running']).toContain(running.json.status)
    expect(queued.json.status).toBe('queued')
    for (const r of [queued, running]) {
      const cancel = await remote('run', 'cancel', r.json.id)
      expect(cancel.json).toMatchObject({ id: r.json.id, status: 'cancelled', cancelled: true })
      const watch = await remote('run', 'watch', r.json.id)
      expect(watch.json.status).toBe('cancelled')
    }
  }, 30_000)

  it('should start a tune session, follow it, show its status, and refuse to resume a finished one', async () => {
    const start = await remote('tune', 'start', runId, '--trials', '3', '--strategy', 'random', '--keep', 'attention_backend,activation_dtype')
    expect(start.code).toBe(0)
    const id = start.json.id
    const watch = await remote('tune', 'watch', id)
    expect(watch.json).toMatchObject({ id, status: 'completed', trialsDone: 3 })
    expect((await remote<TuneSessionDetail>('tune', 'status', id)).json.trials).toHaveLength(3)
    const resume = await remote<CliFailure>('tune', 'resume', id)
    expect(resume.code).toBe(1)
    expect(resume.json.error.message).toMatch(/completed; only a paused/)
    const cancel = await remote('tune', 'cancel', id)
    expect(cancel.code).toBe(0)
  }, 30_000)

  it('should list, approve (four eyes), show the audit of and deprecate a registry kernel over the server', async () => {
    const mint = async (role: string) => (await cli<TokenCreated>(t.dir, ['token', 'create', '--role', role, '--tenant', 'default', '--server', url, '--token', ADMIN, '--json'])).json.token
    const [submitter, approver] = [await mint('admin'), await mint('approver')]
    const res = await fetch(`${url}/api/v1/kernels/registry`, {
      method: 'POST', headers: { authorization: `Bearer ${submitter}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hand-gemv', kernelFamily: 'gemv/q4_0', provider: 'human', source: 'export default () => 0' }),
    })
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const as = async (token: string, ...argv: string[]) => {
      const r = await runMain(['registry', ...argv, '--server', url, '--token', token, '--json'], t.dir)
      return { ...r, json: r.code === 0 ? JSON.parse(r.out) : undefined }
    }
    const listed = await as(approver, 'list', '--status', 'proposed')
    expect([listed.code, listed.err]).toEqual([0, ''])
    expect(listed.json.items.map((e: { id: string }) => e.id)).toContain(id)
    const own = await as(submitter, 'approve', id, '--reason', 'mine')
    expect(own.code).not.toBe(0)
    expect((await as(approver, 'approve', id, '--reason', 'read it')).json.status).toBe('approved')
    expect((await as(approver, 'deprecate', id, '--reason', 'superseded')).json.status).toBe('deprecated')
    const shown = await as(approver, 'show', id)
    expect(shown.json.entry.status).toBe('deprecated')
    expect(shown.json.audit.map((a: { action: string; reason: string | null }) => [a.action, a.reason])).toEqual([['submit', null], ['approve', 'read it'], ['deprecate', 'superseded']])
  })

  it('should answer unknown ids with exit 2, a bad token with exit 1, and bad flags with exit 2', async () => {
    for (const argv of [['run', 'show', 'nope'], ['run', 'apply', 'nope'], ['tune', 'status', 'nope']]) {
      const r = await remote<CliFailure>(...argv)
      expect([argv.join(' '), r.code, r.json.error.code]).toEqual([argv.join(' '), 2, 'NOT_FOUND'])
    }
    const bad = await cli(t.dir, ['run', 'list', '--server', url, '--token', 'wrong'])
    expect([bad.code, /401/.test(bad.err)]).toEqual([1, true])
    const body = await remote<CliFailure>('run', 'create', 'request.json', '--backend', 'nope')
    expect([body.code, /nope/.test(body.json.error.message)]).toEqual([2, true])
  })
})

describe('kerneltune serve', () => {
  it('should exit 2 naming KERNELTUNE_ADMIN_TOKEN when it is too short', async () => {
    const r = await cli(t.dir, ['serve', '--port', '0', '--db', join(t.dir, 'short.db')], { KERNELTUNE_ADMIN_TOKEN: 'short' })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/KERNELTUNE_ADMIN_TOKEN must be 16 to 512 characters/)
  })

  it('should exit 2 before opening anything on a non-loopback --host without a metrics token, and on timeouts that contradict (issue 23 item 19)', async () => {
    const open = await cli(t.dir, ['serve', '--port', '0', '--host', '0.0.0.0', '--db', join(t.dir, 'open.db')], { KERNELTUNE_ADMIN_TOKEN: ADMIN })
    expect(open.code).toBe(2)
    expect(open.err).toMatch(/refusing to listen on 0\.0\.0\.0 with \/metrics open.*--metrics-token or KERNELTUNE_METRICS_TOKEN.*--metrics-public/)
    const timeouts = await cli(t.dir, ['serve', '--port', '0', '--headers-timeout', '5', '--request-timeout', '1', '--db', join(t.dir, 'open.db')], { KERNELTUNE_ADMIN_TOKEN: ADMIN })
    expect(timeouts.code).toBe(2)
    expect(timeouts.err).toMatch(/headers timeout \(5000 ms\) must not exceed the request timeout \(1000 ms\)/)
  })

  it('should exit 2 naming a --model-dir that is not a directory (every one given is checked)', async () => {
    const r = await cli(t.dir, ['serve', '--port', '0', '--db', join(t.dir, 'dirs.db'), '--model-dir', t.dir, '--model-dir', 'no-such-dir'], { KERNELTUNE_ADMIN_TOKEN: ADMIN })
    expect([r.code, r.err]).toEqual([2, expect.stringMatching(/--model-dir \S*no-such-dir is not a directory/)])
  })

  it('should serve on an ephemeral port, print { url } with --json, answer /healthz and stop on SIGTERM', async () => {
    const root = resolve(import.meta.dirname, '../../../..')
    const child = spawn(join(root, 'node_modules/.bin/tsx'), ['--conditions=@kerneltune/source', join(root, 'apps/cli/src/main.ts'), 'serve', '--port', '0', '--db', join(t.dir, 'serve.db'), '--json'], {
      env: { ...process.env, KERNELTUNE_ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    const listening = await new Promise<string>((ok, fail) => {
      child.stdout.on('data', (d) => { out += d; const m = /"url": "([^"]+)"/.exec(out); if (m) ok(m[1]!) })
      child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)))
    })
    expect(listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${listening}/healthz`)).status).toBe(200)
    const runs = await fetch(`${listening}/api/v1/kernels/runs`, { headers: { authorization: `Bearer ${ADMIN}` } })
    expect(runs.status).toBe(200)
    const code = await new Promise<number | null>((ok) => { child.once('exit', ok); child.kill('SIGTERM') })
    expect(code).toBe(0)
  }, 60_000)
})
