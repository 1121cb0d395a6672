import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { CONTRACT_VERSIONS, type EnginePlugin } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { startInstantServer } from './instant-server.node.ts'
import { serverBackend } from './server-backend.node.ts'
import { runServingSession } from './serving-session.node.ts'

const MAIN = fileURLToPath(new URL('./instant-server-main.node.ts', import.meta.url))
// Servers start in their own temporary folder, so the TypeScript loader is given by absolute URL.
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
const NODE_TS = [process.execPath, '--import', TSX, '--conditions=@kerneltune/source', MAIN]
const workload = { kind: 'synthetic', promptTokens: 8, outputTokens: 4 } as const

/** An engine plugin that "translates" a combination into the instant server's command line. */
const fakeEngine: EnginePlugin = {
  name: 'fake',
  kind: 'engine',
  apiVersion: CONTRACT_VERSIONS.engine,
  displayName: 'fake',
  defaultVersion: '1',
  supportedVersions: () => ['1'],
  translate: (combo, ctx) =>
    combo.delay === 'bad'
      ? { ok: false, engine: 'fake', version: '1', dimension: 'delay', value: 'bad', reason: 'no such delay' }
      : { ok: true, engine: 'fake', version: '1', argv: ['fake', ...NODE_TS.slice(1), '--port', String(ctx?.options?.port), '--token-delay-ms', combo.delay ?? '0'], env: {}, files: {}, notes: [] },
}

describe('runServingSession', () => {
  it('should measure a running endpoint at several levels and cross-check the measured requests only', async () => {
    const s = await startInstantServer()
    try {
      const r = await runServingSession({ target: { kind: 'endpoint', url: s.baseUrl }, levels: [{ concurrency: 1 }, { concurrency: 3 }], load: { workload, requests: 6, warmups: 2 } })
      expect(r.levels.map((l) => l.concurrency)).toEqual([1, 3])
      expect(r.server).toMatchObject({ version: 'llama.cpp instant-0', launched: false })
      expect(s.served()).toBe(14)
      // The warm-ups ran before the counters were read: server and client agree exactly.
      for (const l of r.levels) expect(l.crossCheck.gaps.outputTokens).toMatchObject({ client: 24, server: 24, relative: 0 })
      await expect(runServingSession({ target: { kind: 'endpoint', url: s.baseUrl }, combo: { threads: '2' }, load: { workload, requests: 1 } })).rejects.toThrow(/cannot be reconfigured/)
    } finally {
      await s.close()
    }
  })

  it('should launch a command template with {port} and stop it afterwards', async () => {
    const r = await runServingSession({ target: { kind: 'template', command: `${NODE_TS.join(' ')} --port {port}` }, load: { workload, requests: 2 } })
    expect(r.server.launched).toBe(true)
    expect(r.server.argv[0]).toMatch(/--port \d+$/)
    expect(r.levels[0]!.metrics.requests.completed).toBe(2)
    await expect(fetch(r.server.baseUrl)).rejects.toThrow()
  }, 60_000)
})

describe('serverBackend', () => {
  it('should translate, launch, load and stop per combination, one repetition per load run', async () => {
    const backend = serverBackend({ target: { kind: 'engine', engine: fakeEngine, binary: process.execPath, model: 'none' }, load: { workload, requests: 3 }, level: { concurrency: 2 } })
    const r = await backend.measure({ combo: { delay: '1' }, repetitions: 2, warmups: 1 })
    expect(r.simulated).toBe(false)
    expect(r.repetitions.length).toBe(2)
    expect(r.repetitions[0]!.decodeTps).toBeGreaterThan(0)
    expect(r.repetitions[0]!.breakdown?.tpotMeanMs).toBeGreaterThan(0)
    expect(r.device).toMatch(/^CPU: /)
    expect(r.notes).toContain('server version: llama.cpp instant-0')
    expect(r.notes!.some((n) => n.startsWith('server argv: '))).toBe(true)
    await expect(backend.measure({ combo: { delay: 'bad' }, repetitions: 1, warmups: 0 })).rejects.toThrow(/refuses delay=bad/)
  }, 60_000)
})
