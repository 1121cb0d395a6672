import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { processAlive, startInstantServer } from '@kerneltune/serving/node'
import { openStore } from '@kerneltune/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryIo, runMain } from '../cli/testing.ts'
import { main } from '../main.ts'
import { processesNaming } from '@kerneltune/tooling/test-processes'

const dir = mkdtempSync(join(tmpdir(), 'kt-gateway-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const run = (...argv: string[]) => runMain(argv, dir)
const MAIN = join(import.meta.dirname, '..', 'main.ts')

/** The CLI as its own process, as an operator runs it (SIGTERM reaches it alone). */
function startCli(argv: string[]): { child: ChildProcess; lines: () => Record<string, any>[]; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', MAIN, ...argv], { cwd: join(import.meta.dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (b: Buffer) => void (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => void (err += b.toString()))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return { child, lines: () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)), stderr: () => err, exited }
}

async function ready(c: ReturnType<typeof startCli>, timeoutMs: number): Promise<Record<string, any>> {
  const t0 = Date.now()
  for (;;) {
    const r = c.lines().find((l) => l.event === 'ready')
    if (r) return r
    if (c.child.exitCode !== null) throw new Error(`the gateway exited (${c.child.exitCode}): ${c.stderr()}`)
    if (Date.now() - t0 > timeoutMs) throw new Error(`the gateway was not ready in ${timeoutMs} ms: ${c.stderr()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A streamed completion through the gateway: status, arm and the whole body. */
function stream(url: string, prompt: string, n: number): Promise<{ status: number; arm: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify({ prompt, max_tokens: n, n_predict: n, ignore_eos: true, temperature: 0, stream: true })
    const req = request(new URL('/v1/completions', url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => void (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, arm: res.headers['x-kerneltune-arm'] as string | undefined, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(text)
  })
}

const complete = (body: string) => /data: \[DONE\]\s*$/.test(body)

describe('kerneltune gateway', () => {
  it('should take a vLLM arm through its serving capability and say plainly when vLLM is not installed', async () => {
    const m = memoryIo(dir, { PATH: join(dir, 'no-bin') })
    const code = await main(['gateway', '--engine', 'vllm', '--arms', 'defaults', '--model', 'org/model', '--db', join(dir, 'vllm.db'), '--json'], m.io)
    expect(code).toBe(2)
    expect(JSON.parse(m.out())).toMatchObject({ ok: false, error: { code: 'ENGINE_NOT_INSTALLED', message: expect.stringMatching(/pip install vllm==0\.32\.0/) } })
    expect((await run('gateway', '--engine', 'vllm', '--arms', 'defaults')).err).toMatch(/give --model MODEL/)
  })

  it.each([
    [['--slo', 'ttft_p98_ms=1', '--endpoint', 'http://127.0.0.1:9'], /--slo: unknown latency objective 'ttft_p98_ms'; accepted: ttft_mean_ms/],
    [['--arms', 'recommended', '--gguf', 'm.gguf'], /give --run RUN_ID/],
    [['--arms', '{"threads":1}', '--gguf', 'm.gguf'], /maps settings to string values/],
    [['--arms', 'defaults,{"threads":"1"'], /unbalanced braces/],
    [['--arms', 'defaults,{"threads":"1"}'], /give --gguf FILE/],
    [['--arms', 'a=http://127.0.0.1:9', '--fallback', 'b'], /--fallback b is not one of the arms/],
    [['--arms', 'a=http://127.0.0.1:9,a=http://127.0.0.1:10'], /two arms are named a/],
    [['--arms', 'fastest'], /is not an arm/],
    [['--endpoint', 'ftp://x', '--gamma', '0.9'], /--gamma is for discounted/],
    [['--endpoint', 'ftp://x'], /--endpoint must be an http\(s\) URL/],
    [['--endpoint', 'http://127.0.0.1:9', '--token', 'short'], /at least 16 characters/],
    [['--endpoint', 'http://127.0.0.1:9', '--allow-origin', '*'], /--allow-origin "\*" is not an origin/],
    [['--endpoint', 'http://127.0.0.1:9', '--max-body-mb', '16', '--max-total-body-mb', '8'], /--max-total-body-mb \(8\) must be at least --max-body-mb/],
    [['--endpoint', 'http://127.0.0.1:9', '--max-tokens-cap', '0'], /--max-tokens-cap/],
    [['--endpoint', 'http://127.0.0.1:9', '--headers-timeout', '20', '--request-timeout', '10'], /--headers-timeout must not exceed --request-timeout/],
  ])('should refuse %j with exit code 2 and the reason', async (argv, why) => {
    const r = await run('gateway', '--db', join(dir, 'usage.db'), ...argv)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(why)
  })

  it('should serve, store the deployment, and on SIGTERM drain the in-flight request and exit 0', async () => {
    const slow = await startInstantServer({ tokenDelayMs: 20 })
    const fast = await startInstantServer({ tokenDelayMs: 0 })
    const db = join(dir, 'gw.db')
    try {
      const c = startCli(['gateway', '--arms', `defaults=${slow.baseUrl},fast=${fast.baseUrl}`, '--slo', 'ttft_p99_ms=500,tpot_p99_ms=50', '--port', '0', '--db', db, '--save-every', '0.2', '--json'])
      const r = await ready(c, 60_000)
      expect(r).toMatchObject({ policy: 'thompson', fallback: 'defaults', objectives: 'ttft_p99_ms=500,tpot_p99_ms=50' })
      expect(r.arms.map((a: { arm: string }) => a.arm)).toEqual(['defaults', 'fast'])
      for (let i = 0; i < 5; i++) await Promise.all([0, 1, 2].map((j) => stream(r.url, `p${i}${j}`, 4)))
      const metrics = await (await fetch(`${r.url}/metrics`)).text()
      expect(metrics).toContain('kerneltune_gateway_requests_total{arm="fast"}')
      // A long answer in flight on the slow arm when SIGTERM comes: it still completes.
      const inflight = [stream(r.url, 'long', 40), stream(r.url, 'long2', 40)]
      await new Promise((res) => setTimeout(res, 150))
      c.child.kill('SIGTERM')
      const answers = await Promise.all(inflight)
      expect(answers.every((a) => a.status === 200 && complete(a.body))).toBe(true)
      expect(await c.exited).toBe(0)
      const stopped = c.lines().find((l) => l.event === 'stopped')!
      expect(stopped.totals).toMatchObject({ requests: 17, failed: 0 })
      expect(c.stderr()).toMatch(/SIGTERM: draining/)
      const store = await openStore(db)
      try {
        const g = (await store.deployments.gateway('default', r.deploymentId))!
        expect(g.gateway).toMatchObject({ state: 'stopped', policy: 'thompson' })
        expect(g.decisionCount).toBe(17)
        expect(g.arms.map((a) => a.arm)).toEqual(['defaults', 'fast'])
        expect(g.arms.reduce((t, a) => t + (a.stats.requests as number), 0)).toBe(17)
      } finally {
        await store.close()
      }
    } finally {
      await slow.close()
      await fast.close()
    }
  }, 120_000)

  it('should need the --token on every route but /health and cap the generation at --max-tokens-cap', async () => {
    const arm = await startInstantServer({ tokenDelayMs: 0 })
    const token = 'cli-gateway-token-0123456789'
    try {
      const c = startCli(['gateway', '--arms', `defaults=${arm.baseUrl}`, '--port', '0', '--db', join(dir, 'token.db'), '--token', token, '--max-tokens-cap', '3', '--json'])
      const r = await ready(c, 60_000)
      const call = (body: object, headers: Record<string, string> = {}) => fetch(`${r.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
      expect((await call({ prompt: 'x', max_tokens: 2 })).status).toBe(401)
      expect((await fetch(`${r.url}/metrics`)).status).toBe(401)
      expect((await fetch(`${r.url}/health`)).status).toBe(200)
      const auth = { authorization: `Bearer ${token}` }
      const capped = await call({ prompt: 'x', max_tokens: -1 }, auth)
      expect(capped.status).toBe(200)
      expect(await capped.text()).toContain('"completion_tokens":3')
      expect((await call({ prompt: 'x', max_tokens: 4 }, auth)).status).toBe(400)
      c.child.kill('SIGTERM')
      expect(await c.exited).toBe(0)
      expect(c.lines().find((l) => l.event === 'stopped')!.totals).toMatchObject({ requests: 2, clientErrors: 1, failed: 0 })
      expect(arm.served()).toBe(1)
    } finally {
      await arm.close()
    }
  }, 120_000)
})

// The real llama-server: outside CI a missing binary skips with the reason; under CI=true it fails.
const found = findLlamaServer(LLAMACPP_VERSION)
const skip = !found && process.env.CI !== 'true'
if (skip) console.warn(`kerneltune-skip: kerneltune gateway on llama-server: no binary; ${BUILD_HINT}`)


describe.skipIf(skip)('kerneltune gateway on llama-server', () => {
  beforeAll(async () => {
    if (!found) throw new Error(`CI=true and no llama-server binary: ${BUILD_HINT}`)
    await writeGgufFile(join(dir, 'tiny.gguf'), synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })

  it('should launch one llama-server per arm, serve streamed requests, and on SIGTERM leave no process behind', async () => {
    const model = join(dir, 'tiny.gguf')
    const c = startCli(['gateway', '--gguf', model, '--arms', 'defaults,{"threads":"1"}', '--port', '0', '--db', join(dir, 'llama.db'), '--json'])
    const r = await ready(c, 240_000)
    const pids = r.arms.map((a: { pid: number }) => a.pid)
    expect(pids.every((p: number) => processAlive(p))).toBe(true)
    expect(r.arms[1].argv.join(' ')).toMatch(/llama-server -m .*tiny\.gguf --threads 1 .*--metrics/)
    expect(processesNaming(model).length).toBeGreaterThanOrEqual(2)
    const first = await Promise.all([0, 1, 2, 3].map((i) => stream(r.url, `hello ${i}`, 8)))
    expect(first.every((a) => a.status === 200 && complete(a.body))).toBe(true)
    const inflight = [0, 1, 2].map((i) => stream(r.url, `drain ${i}`, 48))
    await new Promise((res) => setTimeout(res, 50))
    c.child.kill('SIGTERM')
    const drained = await Promise.all(inflight)
    expect(drained.every((a) => a.status === 200 && complete(a.body))).toBe(true)
    expect(await c.exited).toBe(0)
    for (const p of pids) expect(processAlive(p)).toBe(false)
    expect(processesNaming(model)).toEqual([])
  }, 300_000)
})
