import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { CONTRACT_VERSIONS, type EnginePlugin } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { serverBackend } from './server-backend.node.ts'

// The instant server of @kerneltune/serving, run as its own process from the workspace source.
const MAIN = fileURLToPath(new URL('../../../serving/src/adapters/instant-server-main.node.ts', import.meta.url))
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
// The instant server is a Node program, also when these tests run under Bun or Deno.
const NODE = !('Deno' in globalThis) && !('Bun' in globalThis) ? process.execPath : 'node'
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
    expect(r.device).toMatch(/^CPU: /)
    expect(r.notes).toContain('server version: llama.cpp instant-0')
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
})
