import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Combo } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine, servingSweepSpace, sweepSpace } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { sendRequest } from '@kerneltune/serving'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { launchServer, processAlive, runServingSession } from '@kerneltune/serving/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { classifyFailure } from '@kerneltune/tuner'
import { serverRunBackend } from './server-run-backend.node.ts'
import { serverBackend } from './server-backend.node.ts'

// Real llama-server runs on a synthetic llama of about 1 MB (random weights: meaningless text,
// real timings). Outside CI a missing binary skips with the reason; under CI=true it fails.
const found = findLlamaServer(LLAMACPP_VERSION)
const skip = !found && process.env.CI !== 'true'
if (skip) console.warn(`kerneltune-skip: llama-server tests: no llama-server binary; ${BUILD_HINT}`)
const dir = mkdtempSync(join(tmpdir(), 'llama-server-test-'))
const model = join(dir, 'tiny-q8_0.gguf')
const binary = () => {
  if (!found) throw new Error(`CI=true and no llama-server binary: ${BUILD_HINT}`)
  return found.path
}

/** Every assignment of a space, as combos. */
function combos(space: Readonly<Record<string, readonly string[]>>): Combo[] {
  return Object.entries(space).reduce<Combo[]>((acc, [k, vs]) => acc.flatMap((c) => vs.map((v) => ({ ...c, [k]: v }))), [{}])
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 300 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 50))
  return !processAlive(pid)
}

describe.skipIf(skip)('llama-server (real binary)', () => {
  beforeAll(async () => {
    binary()
    await writeGgufFile(model, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 9 }).file)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('should report a llama-server that refuses to start as a failed start with its own error lines (a hidden constraint of Tier 2)', async () => {
    // An impossible setting the server itself rejects at start-up: an unknown K cache type.
    const backend = serverBackend({
      target: { kind: 'engine', engine: llamacppServerEngine({ binary: binary() }), binary: binary(), model, extraArgs: ['--cache-type-k', 'bogus'] },
      load: { workload: { kind: 'synthetic', promptTokens: 8, outputTokens: 2 }, requests: 1 },
    })
    const e = await backend.measure({ combo: { threads: '1' }, repetitions: 1, warmups: 0 }).then(() => undefined, (x: unknown) => x)
    expect(e).toBeDefined()
    const failure = classifyFailure(e)
    expect(failure.kind).toBe('start')
    expect(failure.serverLines.join('\n')).toMatch(/bogus|cache type/i)
    // The engine's log classes read the same lines: llama-server refused its settings.
    expect((e as Error).message).toMatch(/before it was ready \(it refused its settings: /)
    expect((e as { details?: { logClass?: string } }).details?.logClass).toBe('refused')
  }, 60_000)

  it('should start every command line the translator accepts in the quick spaces (a refusal is fine, a launch failure is a translator defect)', async () => {
    const engine = llamacppServerEngine({ binary: binary() })
    const cores = cpus().length
    const all = [...combos(sweepSpace('quick', cores)), ...combos(servingSweepSpace('quick', cores))]
    const seen = new Set<string>()
    const failures: string[] = []
    let started = 0
    let refused = 0
    for (const combo of all) {
      const t = await engine.translate(combo, { model, options: { host: '127.0.0.1', port: '{port}' } })
      if (!t.ok) {
        refused++
        continue
      }
      const key = t.argv.join(' ')
      if (seen.has(key)) continue
      seen.add(key)
      try {
        const s = await launchServer({ argv: t.argv, env: t.env, readyTimeoutMs: 60_000 })
        try {
          const r = await sendRequest({ baseUrl: s.baseUrl, api: 'completions', spec: { prompt: [11, 12, 13, 14], outputTokens: 2 }, timeoutMs: 60_000 })
          if (!r.ok) failures.push(`${key}: started but did not answer: ${r.error}`)
          const bad = s.output().filter((l) => /unknown argument|invalid argument|error while handling argument/i.test(l))
          if (bad.length) failures.push(`${key}: ${bad.join(' | ')}`)
        } finally {
          await s.stop()
        }
        started++
      } catch (e) {
        failures.push(`${JSON.stringify(combo)} → ${key}: ${(e as Error).message}`)
      }
    }
    expect(failures).toEqual([])
    expect(started).toBeGreaterThanOrEqual(12)
    expect(refused).toBeGreaterThan(0)
  }, 600_000)

  it('should measure a combination through the run backend, with the server version and the device', async () => {
    const backend = serverRunBackend({ engines: { list: () => [llamacppServerEngine()] }, binaries: { llamacpp: binary() }, requests: 4 }).modelFile.forModel(model)
    const r = await backend.measure({ engine: 'llamacpp', combo: { threads: '1', parallel: '2' }, repetitions: 2, warmups: 1, workload: { batch: 2, phase: 'decode', promptTokens: 16, generatedTokens: 6, cudaGraphs: false } })
    expect(r.repetitions).toHaveLength(2)
    expect(r.repetitions.every((x) => (x.decodeTps ?? 0) > 0 && (x.ttftMs ?? 0) > 0)).toBe(true)
    expect(r.device).toMatch(/^CPU: /)
    expect(r.notes).toContainEqual(expect.stringMatching(/^server version: llama\.cpp b\d+-/))
    expect(r.notes).toContainEqual(expect.stringMatching(/--threads 1 .*--parallel 2/))
    // The cross-check: the server's own per-token time and its /metrics counters.
    expect(r.notes).toContainEqual(expect.stringMatching(/^TPOT .* per generated token on the server/))
    // Client (usage) and server (/metrics) count the same tokens: 8 requests x 6 unless one failed, which a note would say.
    expect(r.notes).toContainEqual(expect.stringMatching(/^output tokens: (\d+) in the responses' usage vs \1 counted/))
  }, 300_000)

  it('should record every phase of a real llama-server launch, in order, and pre-launch each arm once (issue 35)', async () => {
    const engine = llamacppServerEngine({ binary: binary() })
    const backend = serverBackend({ target: { kind: 'engine', engine, binary: binary(), model, extraArgs: ['--no-warmup'] }, load: { workload: { kind: 'synthetic', promptTokens: 8, outputTokens: 2 }, requests: 2 }, level: { concurrency: 2 }, useRequestWorkload: false, keepServers: { parallelLaunches: 2 } })
    try {
      const prepared = await backend.prepare!([{ combo: { threads: '1' }, repetitions: 1, warmups: 1 }, { combo: { threads: '1', parallel: '2' }, repetitions: 1, warmups: 1 }])
      expect(prepared.map((p) => p.ok)).toEqual([true, true])
      for (const p of prepared) {
        expect(p.warmed).toBe(true)
        const ph = p.launch!.phases as Record<string, number>
        for (const k of ['setupMs', 'listeningMs', 'modelLoadedMs', 'readyMs', 'warmupStartMs', 'warmupEndMs']) expect(typeof ph[k]).toBe('number')
        expect(ph.listeningMs).toBeLessThanOrEqual(ph.readyMs!)
        expect(ph.modelLoadedMs).toBeLessThanOrEqual(ph.readyMs!)
        expect(ph.readyMs).toBeLessThanOrEqual(ph.warmupStartMs!)
        expect(ph.warmupStartMs).toBeLessThanOrEqual(ph.warmupEndMs!)
      }
      // A measurement of a pre-launched arm launches nothing.
      const r = await backend.measure({ combo: { threads: '1' }, repetitions: 1, warmups: 0 })
      expect(r.launch).toBeUndefined()
      expect(backend.launches()!.map((l) => l.reason)).toEqual(['pre-launch', 'pre-launch'])
    } finally {
      await backend.close()
    }
  }, 300_000)

  it('should measure a running server by --endpoint and launch one from a command template', async () => {
    const s = await launchServer({ argv: [binary(), '-m', model, '--port', '{port}', '--metrics'] })
    try {
      const r = await runServingSession({ target: { kind: 'endpoint', url: s.baseUrl, serving: llamacppServerEngine().serving! }, levels: [{ concurrency: 2 }], load: { workload: { kind: 'synthetic', promptTokens: 8, outputTokens: 4 }, requests: 4 } })
      expect(r.levels[0]!.metrics.requests).toEqual({ completed: 4, failed: 0 })
      expect(r.server.version).toMatch(/^llama\.cpp b\d+-/)
    } finally {
      await s.stop()
    }
    const t = await runServingSession({
      target: { kind: 'template', command: `${binary()} -m ${model} --port {port} {args}`, engine: llamacppServerEngine() },
      combo: { threads: '1' },
      load: { workload: { kind: 'synthetic', promptTokens: 8, outputTokens: 4 }, requests: 2 },
    })
    expect(t.server.argv[0]).toMatch(/--port \d+ --threads 1$/)
    expect(t.levels[0]!.metrics.requests.completed).toBe(2)
  }, 300_000)

  it('should report a server that fails to start as a failed combination with its own error lines', async () => {
    const err = await launchServer({ argv: [binary(), '-m', model, '--port', '{port}', '--no-such-flag'] }).catch((e: Error) => e)
    expect(String(err)).toMatch(/exited \(code \d+\) before it was ready: .*no-such-flag/)
  }, 120_000)

  it('should leave no llama-server behind when the process that launched it is SIGKILLed', async () => {
    const fixture = fileURLToPath(new URL('../../../serving/src/adapters/launch-fixture.node.ts', import.meta.url))
    const argv = [binary(), '-m', model, '--port', '{port}']
    // The launching process is a Node program (tsx), also when these tests run under Bun or Deno.
    const node = !('Deno' in globalThis) && !('Bun' in globalThis) ? process.execPath : 'node'
    const child = spawn(node, ['--import', 'tsx', '--conditions=@kerneltune/source', fixture, JSON.stringify(argv), 'pdeathsig', '/health'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const line = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        if (out.includes('\n')) resolve(out.split('\n')[0]!)
      })
      child.once('exit', (code) => reject(new Error(`the launcher exited with ${code} before llama-server was ready`)))
    })
    const { pid } = JSON.parse(line) as { pid: number }
    expect(processAlive(pid)).toBe(true)
    child.kill('SIGKILL')
    expect(await gone(pid)).toBe(true)
  }, 120_000)
})
