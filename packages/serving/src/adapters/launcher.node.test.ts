import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { errorLines, launchServer, processAlive } from './launcher.node.ts'

// A model-loaded line of the kind an engine's ServingReadiness names (the tests' own servers print it).
const LOADED = /:\s*model loaded\s*$/

// Small servers written as `node -e` one-liners, so the tests need nothing but Node.
const HTTP_OK = `require('http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening'))`
const NEVER_READY = `require('http').createServer((q, s) => { s.statusCode = 503; s.end('loading') }).listen(Number(process.argv[1]), '127.0.0.1')`
// Shaped like llama-server's start: HTTP first (503 while "loading"), then ready, then its line.
const LOADS = `let ready = false; require('http').createServer((q, s) => { s.statusCode = ready ? 200 : 503; s.end() }).listen(Number(process.argv[1]), '127.0.0.1', () => setTimeout(() => { ready = true; console.log('srv  server: model loaded') }, 400))`
const IGNORES_TERM = `process.on('SIGTERM', () => console.log('ignoring SIGTERM')); require('child_process').spawn('sleep', ['600'], { stdio: 'ignore' }); ${HTTP_OK}`
// The test servers are Node programs, also when these tests run under Bun or Deno.
const node = process.release?.name === 'node' && !('Deno' in globalThis) && !('Bun' in globalThis) ? process.execPath : 'node'

async function gone(pid: number, withinMs = 15_000): Promise<boolean> {
  const end = Date.now() + withinMs
  while (Date.now() < end) {
    if (!processAlive(pid)) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return !processAlive(pid)
}

describe('launchServer', () => {
  it('should start on a free loopback port, wait for health, capture output and stop', async () => {
    const s = await launchServer({ argv: [node, '-e', HTTP_OK, '{port}'], healthPath: '/', files: { 'conf/a.txt': 'hello' } })
    expect(s.baseUrl).toBe(`http://127.0.0.1:${s.port}`)
    expect(await (await fetch(s.baseUrl)).text()).toBe('ok')
    expect(existsSync(`${s.dir}/conf/a.txt`)).toBe(true)
    expect(s.output()).toContain('listening')
    await s.stop()
    expect(await gone(s.pid)).toBe(true)
    expect(existsSync(s.dir)).toBe(false)
  })

  it('should report a server that exits before it is ready with its own error lines', async () => {
    const fails = `console.log('loading'); console.error('error: invalid argument: --bogus'); process.exit(1)`
    await expect(launchServer({ argv: [node, '-e', fails] })).rejects.toThrow(/exited \(code 1\) before it was ready: error: invalid argument: --bogus/)
    // With the engine's log classes, the class leads the message and is in the details.
    const err = await launchServer({ argv: [node, '-e', fails], classify: (lines) => (lines.some((l) => /invalid argument/.test(l)) ? { class: 'refused', line: lines.find((l) => /invalid argument/.test(l))! } : undefined) }).catch((e: Error & { details?: { logClass?: string } }) => e)
    expect((err as Error).message).toMatch(/before it was ready \(it refused its settings: error: invalid argument: --bogus\)/)
    expect((err as { details?: { logClass?: string } }).details?.logClass).toBe('refused')
  })

  it('should give up after the readiness timeout and leave no process', async () => {
    const err = await launchServer({ argv: [node, '-e', NEVER_READY, '{port}'], readyTimeoutMs: 1500 }).catch((e: Error & { details?: { pid?: number } }) => e)
    expect(String(err)).toMatch(/not ready within 1500 ms/)
    const pid = (err as { details?: { pid?: number } }).details?.pid
    expect(typeof pid).toBe('number')
    expect(await gone(pid!)).toBe(true)
  })

  it('should SIGKILL the whole group after the grace period when SIGTERM is ignored', async () => {
    const s = await launchServer({ argv: [node, '-e', IGNORES_TERM, '{port}'], healthPath: '/', graceMs: 300 })
    const r = await s.stop()
    expect(r.signal).toBe('SIGKILL')
    expect(s.output()).toContain('ignoring SIGTERM')
    expect(await gone(s.pid)).toBe(true)
  })

  it('should record the launch phases in order: listening (503 while loading), model loaded, ready, warm-up', async () => {
    const s = await launchServer({ argv: [node, '-e', LOADS, '{port}'], modelLoadedLine: LOADED })
    try {
      const p = s.phases()
      expect(Number.isNaN(Date.parse(p.spawnedAt))).toBe(false)
      expect(p.setupMs).toBeGreaterThanOrEqual(0)
      // The server answered 503 for 400 ms before it was ready: listening is seen before the model is loaded.
      expect(p.listeningMs).toBeGreaterThan(0)
      expect(p.modelLoadedMs).toBeGreaterThan(p.listeningMs!)
      expect(p.readyMs).toBeGreaterThanOrEqual(p.modelLoadedMs!)
      const t = performance.now()
      s.markWarmup(t, t + 50, 4)
      s.markWarmup(t + 100, t + 200, 8)
      const w = s.phases()
      // The first warm-up is the one the launch paid; a later one does not replace it.
      expect(w.warmupRequests).toBe(4)
      expect(w.warmupStartMs).toBeGreaterThanOrEqual(w.readyMs!)
      expect(w.warmupEndMs! - w.warmupStartMs!).toBeCloseTo(50, 0)
    } finally {
      await s.stop()
    }
  })

  it('should take the model-loaded line that comes just after the first 200 (a server may log it through a thread)', async () => {
    // Ready at once, the line 100 ms later: the launch waits for it instead of returning without it.
    const late = `require('http').createServer((q, s) => { s.statusCode = 200; s.end() }).listen(Number(process.argv[1]), '127.0.0.1', () => setTimeout(() => console.log('srv  server: model loaded'), 100))`
    const s = await launchServer({ argv: [node, '-e', late, '{port}'], modelLoadedLine: LOADED })
    try {
      const p = s.phases()
      expect(p.modelLoadedMs).toBeGreaterThanOrEqual(0)
      // Loaded by the time it answered 200: the line only came later.
      expect(p.modelLoadedMs).toBeLessThanOrEqual(p.readyMs!)
    } finally {
      await s.stop()
    }
  })

  it('should report the phases a failed launch reached', async () => {
    const err = await launchServer({ argv: [node, '-e', NEVER_READY, '{port}'], readyTimeoutMs: 1000 }).catch((e: Error & { details?: { phases?: { listeningMs?: number; readyMs?: number } } }) => e)
    const phases = (err as { details?: { phases?: { listeningMs?: number; readyMs?: number } } }).details?.phases
    expect(phases?.listeningMs).toBeGreaterThanOrEqual(0)
    expect(phases?.readyMs).toBeUndefined()
  })

  it('should fill {port} in a shell command template', async () => {
    const s = await launchServer({ argv: [`${node} -e "${HTTP_OK.replaceAll('"', '\\"')}" {port}`], shell: true, healthPath: '/' })
    expect(await (await fetch(s.baseUrl)).text()).toBe('ok')
    await s.stop()
  })

  it('should pick the error lines out of a server log', () => {
    expect(errorLines(['loading model', 'error: unknown argument: --x', 'usage: llama-server [options]'])).toEqual(['error: unknown argument: --x', 'usage: llama-server [options]'])
    expect(errorLines(['a', 'b'], 1)).toEqual(['b'])
    // The engine's redaction applies to every line returned.
    expect(errorLines(['error: secret 1234'], 12, (l) => l.replace(/\d+/, '#'))).toEqual(['error: secret #'])
  })

  for (const mode of ['watchdog and pdeathsig', 'watchdog alone'] as const) {
    it(`should leave no orphan server when kerneltune is SIGKILLed (${mode})`, async () => {
      const fixture = fileURLToPath(new URL('./launch-fixture.node.ts', import.meta.url))
      const child = spawn(node, ['--import', 'tsx', '--conditions=@kerneltune/source', fixture, JSON.stringify([node, '-e', HTTP_OK, '{port}']), mode === 'watchdog alone' ? 'no-pdeathsig' : 'pdeathsig'], { stdio: ['ignore', 'pipe', 'inherit'] })
      const line = await new Promise<string>((resolve, reject) => {
        let out = ''
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString()
          if (out.includes('\n')) resolve(out.split('\n')[0]!)
        })
        child.once('exit', (code) => reject(new Error(`fixture exited with ${code} before the server was ready`)))
      })
      const { pid } = JSON.parse(line) as { pid: number }
      expect(processAlive(pid)).toBe(true)
      child.kill('SIGKILL')
      expect(await gone(pid)).toBe(true)
    }, 60_000)
  }
})
