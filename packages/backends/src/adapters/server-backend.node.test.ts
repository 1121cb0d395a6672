import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { CONTRACT_VERSIONS, type EnginePlugin } from '@kerneltune/core'
import { INSTANT_SERVER_SERVING, processAlive } from '@kerneltune/serving/node'
import { runInterleavedSweep } from '@kerneltune/experiment'
import { describe, expect, it } from 'vitest'
import { serverBackend } from './server-backend.node.ts'

// The instant server of @kerneltune/serving, run as its own process from the workspace source.
const MAIN = fileURLToPath(new URL('../../../serving/src/adapters/instant-server-main.node.ts', import.meta.url))
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
// The instant server is a Node program, also when these tests run under Bun or Deno.
const NODE = !('Deno' in globalThis) && !('Bun' in globalThis) ? process.execPath : 'node'
const workload = { kind: 'synthetic', promptTokens: 8, outputTokens: 4 } as const

/** An engine plugin that "translates" a combination into the instant server's command line, served as the instant server. */
const fakeEngine: EnginePlugin = {
  name: 'fake',
  kind: 'engine',
  apiVersion: CONTRACT_VERSIONS.engine,
  displayName: 'fake',
  defaultVersion: '1',
  supportedVersions: () => ['1'],
  serving: INSTANT_SERVER_SERVING,
  translate: (combo, ctx) =>
    combo.delay === 'bad'
      ? { ok: false, engine: 'fake', version: '1', dimension: 'delay', value: 'bad', reason: 'no such delay' }
      : combo.delay === 'crash'
        ? { ok: true, engine: 'fake', version: '1', argv: ['fake', '-e', "console.error('error: cannot open the model'); process.exit(3)"], env: {}, files: {}, notes: [] }
        : { ok: true, engine: 'fake', version: '1', argv: ['fake', '--import', TSX, '--conditions=@kerneltune/source', MAIN, '--port', String(ctx?.options?.port), '--token-delay-ms', combo.delay ?? '0'], env: {}, files: {}, notes: [] },
}

describe('serverBackend', () => {
  it('should translate, launch, load and stop per combination, one repetition per load run', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 3 }, level: { concurrency: 2 } })
    const r = await backend.measure({ combo: { delay: '1' }, repetitions: 2, warmups: 1 })
    expect(r.simulated).toBe(false)
    expect(r.repetitions.length).toBe(2)
    expect(r.repetitions[0]!.decodeTps).toBeGreaterThan(0)
    expect(r.repetitions[0]!.breakdown?.tpotMeanMs).toBeGreaterThan(0)
    // Every measured request is kept with its repetition, for objectives and goodput in runs and sessions.
    const served = r.repetitions[0]!.serving!
    expect(served.requests).toHaveLength(3)
    expect(served.durationS).toBeGreaterThan(0)
    expect(served.requests[0]).toMatchObject({ ok: true, outputTokens: 4, ttftMs: expect.any(Number), e2eMs: expect.any(Number), startMs: expect.any(Number) })
    expect(served.requests[0]!.itlMs).toHaveLength(3)
    expect(r.device).toMatch(/^CPU: /)
    expect(r.notes).toContain('server version: instant-0')
    expect(r.notes!.some((n) => n.startsWith('server argv: '))).toBe(true)
    expect(r.notes!.some((n) => /concurrency 2, 3 requests per repetition; token counts from usage/.test(n))).toBe(true)
    await expect(backend.measure({ combo: { delay: 'bad' }, repetitions: 1, warmups: 0 })).rejects.toThrow(/refuses delay=bad/)
  }, 60_000)

  it('should shape the load from the request workload: lengths, and batch as concurrency', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 2 } })
    const r = await backend.measure({ combo: {}, repetitions: 1, warmups: 0, workload: { batch: 3, phase: 'decode', promptTokens: 5, generatedTokens: 6, cudaGraphs: false } })
    expect(r.notes!.some((n) => /concurrency 3, 12 requests per repetition/.test(n))).toBe(true)
    // 12 requests of exactly 6 generated tokens each.
    expect(r.notes!.some((n) => n.startsWith('output tokens: 72 '))).toBe(true)
  }, 60_000)

  it('should send one wave of warm-up requests per warm-up, and none for warmups 0 on a kept server', async () => {
    const sessions: { baseUrl: string }[] = []
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 3 }, level: { concurrency: 2 }, keepServers: true, onSession: (s) => sessions.push({ baseUrl: s.server.baseUrl }) })
    try {
      const predicted = async () => Number(/instant:generation_tokens_total (\d+)/.exec(await (await fetch(`${sessions[0]!.baseUrl}/metrics`)).text())![1])
      await backend.measure({ combo: {}, repetitions: 1, warmups: 1 })
      // 2 warm-up requests (one per stream) + 3 measured, 4 tokens each.
      expect(await predicted()).toBe(5 * 4)
      await backend.measure({ combo: {}, repetitions: 1, warmups: 0 })
      expect(await predicted()).toBe(8 * 4)
    } finally {
      await backend.close()
    }
  }, 60_000)

  it('should keep one server per arm across the rounds of an interleaved sweep and leave none running', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 2 }, level: { concurrency: 2 }, keepServers: true })
    const pids = new Set<number>()
    const measure = backend.measure
    const spied = { ...backend, measure: async (r: Parameters<typeof measure>[0]) => (backend.poolStats()!.pids.forEach((p) => pids.add(p)), measure(r)) }
    const r = await runInterleavedSweep({ backend: spied, candidates: [{ combo: { delay: '1' } }, { combo: { delay: '2' } }], aaCombo: { delay: '0' }, rounds: 3, warmups: 1, engine: fakeEngine, withoutDefaults: (c) => c })
    backend.poolStats()!.pids.forEach((p) => pids.add(p))
    expect(r.rounds).toBe(3)
    expect(r.combos.every((c) => !c.error && c.reps.length === 3)).toBe(true)
    // Four arms (defaults, A/A on its own key, two candidates), three rounds each: four launches, not twelve.
    expect(backend.poolStats()).toMatchObject({ launches: 4, relaunches: 0, evictions: 0, running: 4 })
    expect(pids.size).toBe(4)
    await backend.close()
    expect(backend.poolStats()!.running).toBe(0)
    for (const pid of pids) expect(processAlive(pid)).toBe(false)
    await expect(backend.measure({ combo: {}, repetitions: 1, warmups: 0 })).rejects.toThrow(/closed/)
  }, 60_000)

  it('should bound the kept servers (least recently used stopped) and relaunch a dead one once', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 1 }, keepServers: { max: 2 } })
    try {
      for (const delay of ['0', '1', '0', '2']) await backend.measure({ combo: { delay }, repetitions: 1, warmups: 0 })
      // 0, 1 launched; 0 reused; 2 evicts 1 (least recently used).
      expect(backend.poolStats()).toMatchObject({ launches: 3, evictions: 1, running: 2 })
      const [first] = backend.poolStats()!.pids
      process.kill(-first!, 'SIGKILL')
      await new Promise((r) => setTimeout(r, 300))
      const again = await backend.measure({ combo: { delay: '0' }, repetitions: 1, warmups: 0 })
      expect(again.notes!.some((n) => /exited since its last measurement and was relaunched/.test(n))).toBe(true)
      expect(backend.poolStats()).toMatchObject({ relaunches: 1, running: 2 })
      const [second] = backend.poolStats()!.pids.filter((p) => p !== first)
      for (const pid of backend.poolStats()!.pids) if (pid !== second) process.kill(-pid, 'SIGKILL')
      await new Promise((r) => setTimeout(r, 300))
      await expect(backend.measure({ combo: { delay: '0' }, repetitions: 1, warmups: 0 })).rejects.toThrow(/again after a relaunch/)
    } finally {
      await backend.close()
    }
    expect(backend.poolStats()!.running).toBe(0)
  }, 60_000)

  it('should pre-launch and warm every arm once before round 1, so that no round launches or warms a server', async () => {
    const sessions: string[] = []
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 2 }, level: { concurrency: 2 }, keepServers: { parallelLaunches: 2 }, onSession: (x) => sessions.push(x.server.baseUrl) })
    try {
      const r = await runInterleavedSweep({ backend, candidates: [{ combo: { delay: '1' } }, { combo: { delay: '2' } }], aaCombo: { delay: '0' }, rounds: 3, warmups: 1, revisitWarmups: 0, engine: fakeEngine, withoutDefaults: (c) => c })
      expect(r.settings.prelaunch).toBe(true)
      expect(r.prepareSeconds).toBeGreaterThan(0)
      expect(r.roundSeconds.length).toBe(3)
      // Four arms, one launch each, all before round 1: the rounds launched nothing.
      const launches = backend.launches()!
      expect(launches.map((l) => l.reason)).toEqual(['pre-launch', 'pre-launch', 'pre-launch', 'pre-launch'])
      expect(backend.poolStats()).toMatchObject({ launches: 4, relaunches: 0, evictions: 0, running: 4 })
      expect(Object.keys(r.launches).sort()).toEqual(['aa', 'baseline', ...r.combos.map((c) => c.hash)].sort())
      for (const arm of Object.values(r.launches)) {
        expect(arm.length).toBe(1)
        const p = arm[0]!.phases as Record<string, number>
        // Every phase present, in order; the warm-up was one wave of the measured concurrency.
        for (const k of ['setupMs', 'listeningMs', 'readyMs', 'warmupStartMs', 'warmupEndMs']) expect(typeof p[k]).toBe('number')
        expect(p.listeningMs).toBeLessThanOrEqual(p.readyMs!)
        expect(p.readyMs).toBeLessThanOrEqual(p.warmupStartMs!)
        expect(p.warmupStartMs).toBeLessThanOrEqual(p.warmupEndMs!)
        expect(p.warmupRequests).toBe(2)
      }
      // No visit warmed again: each server answered its 2 warm-up requests and 2 measured per round, 4 tokens each.
      const urls = [...new Set(sessions)]
      expect(urls.length).toBe(4)
      for (const url of urls) expect(Number(/instant:generation_tokens_total (\d+)/.exec(await (await fetch(`${url}/metrics`)).text())![1])).toBe((2 + 2 * 3) * 4)
    } finally {
      await backend.close()
    }
  }, 60_000)

  it('should record a failed pre-launch as that arm\'s failure and measure the others', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 2 }, level: { concurrency: 2 }, keepServers: { parallelLaunches: 2 } })
    try {
      const r = await runInterleavedSweep({ backend, candidates: [{ combo: { delay: 'crash' } }, { combo: { delay: '1' } }], aaCombo: { delay: '0' }, rounds: 2, warmups: 1, revisitWarmups: 0, engine: fakeEngine, withoutDefaults: (c) => c })
      const crashed = r.combos.find((c) => c.combo.delay === 'crash')!
      expect(crashed.error).toMatch(/exited \(code 3\) before it was ready: error: cannot open the model/)
      expect(crashed.reps.length).toBe(0)
      // It took no part in the rounds, and was not launched again.
      expect(r.order.every((round) => !round.includes(crashed.hash))).toBe(true)
      const failed = backend.launches()!.filter((l) => !l.ok)
      expect(failed.length).toBe(1)
      expect(failed[0]!.reason).toBe('pre-launch')
      expect(typeof failed[0]!.phases?.setupMs).toBe('number')
      expect(r.launches[crashed.hash]![0]).toMatchObject({ ok: false, reason: 'pre-launch' })
      expect(r.combos.find((c) => c.combo.delay === '1')!.reps.length).toBe(2)
      // A session for it afterwards throws the pre-launch's failure instead of launching again.
      await expect(backend.measure({ combo: { delay: 'crash' }, repetitions: 1, warmups: 0 })).rejects.toThrow(/failed to start before the first round/)
      expect(backend.launches()!.length).toBe(4)
    } finally {
      await backend.close()
    }
  }, 60_000)

  it('should launch each arm on its first visit, warm-ups one at a time, with the pre-launch off (the behaviour before it)', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: NODE, model: 'none' }, load: { workload, requests: 2 }, level: { concurrency: 2 }, keepServers: true, serialWarmups: true })
    try {
      const r = await runInterleavedSweep({ backend, candidates: [{ combo: { delay: '1' } }], aaCombo: { delay: '0' }, rounds: 2, warmups: 1, revisitWarmups: 0, prelaunch: false, engine: fakeEngine, withoutDefaults: (c) => c })
      expect(r.prepareSeconds).toBeUndefined()
      expect(backend.launches()!.map((l) => l.reason)).toEqual(['first visit', 'first visit', 'first visit'])
      for (const arm of Object.values(r.launches)) expect(arm.map((l) => l.reason)).toEqual(['first visit'])
    } finally {
      await backend.close()
    }
  }, 60_000)
})
