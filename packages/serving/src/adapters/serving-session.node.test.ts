import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { INSTANT_SERVER_SERVING, startInstantServer } from './instant-server.node.ts'
import { runServingSession } from './serving-session.node.ts'

const MAIN = fileURLToPath(new URL('./instant-server-main.node.ts', import.meta.url))
// Servers start in their own temporary folder, so the TypeScript loader is given by absolute URL.
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
// The instant server is a Node program, also when these tests run under Bun or Deno.
const NODE = !('Deno' in globalThis) && !('Bun' in globalThis) ? process.execPath : 'node'
const NODE_TS = [NODE, '--import', TSX, '--conditions=@kerneltune/source', MAIN]
const workload = { kind: 'synthetic', promptTokens: 8, outputTokens: 4 } as const

describe('runServingSession', () => {
  it('should measure a running endpoint at several levels and cross-check the measured requests only', async () => {
    const s = await startInstantServer()
    try {
      const r = await runServingSession({ target: { kind: 'endpoint', url: s.baseUrl, serving: INSTANT_SERVER_SERVING }, levels: [{ concurrency: 1 }, { concurrency: 3 }], load: { workload, requests: 6, warmups: 2 } })
      expect(r.levels.map((l) => l.concurrency)).toEqual([1, 3])
      expect(r.server).toMatchObject({ version: 'instant-0', launched: false })
      expect(s.served()).toBe(14)
      // The warm-ups ran before the counters were read: server and client agree exactly.
      for (const l of r.levels) expect(l.crossCheck.gaps.outputTokens).toMatchObject({ client: 24, server: 24, relative: 0 })
      // Without its engine's capability there are no metric names to read: no counters, and it says so.
      const bare = await runServingSession({ target: { kind: 'endpoint', url: s.baseUrl }, load: { workload, requests: 2, warmups: 0 } })
      expect(bare.levels[0]!.crossCheck.gaps.outputTokens).toBeUndefined()
      expect(bare.levels[0]!.crossCheck.lines).toContain('no Prometheus metrics were read (no metric names for this server)')
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
