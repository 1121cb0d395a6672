import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCatalog } from '@kerneltune/catalog'
import { createRegistry } from '@kerneltune/core'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { openStore } from '@kerneltune/store'
import { createRun, executeRun, type RunSummary } from '@kerneltune/tuner'
import { llamacppRunBackend, llamacppRunEngine } from '@kerneltune/engines-llamacpp/node'

// A real Tier 1 run on llama.cpp: a synthetic llama of about 1 MB (random weights: meaningless
// text, real timings), two combinations (flash_attn auto/off at threads=1), two repetitions each.
const dir = mkdtempSync(join(tmpdir(), 'tuner-llamacpp-'))
const modelPath = join(dir, 'tiny-q8_0.gguf')
const HARDWARE = { name: 'this CPU', vendor: 'other' as const, memBwGbs: 20, fp16Tflops: 0.5 }
const MODEL = { name: 'tiny', paramsB: 0.001 }

describe('llamacpp backend in a run', () => {
  beforeAll(async () => {
    await writeGgufFile(modelPath, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const setup = async () => {
    const registry = createRegistry([llamacppRunEngine(), llamacppRunBackend()])
    const catalog = buildCatalog(registry)
    const pinned = Object.fromEntries(catalog.dimensionsFor('llamacpp').map((d) => [d.id, [d.defaultValue]]))
    return { store: await openStore(':memory:'), registry, catalog, restrict: { ...pinned, threads: ['1'], flash_attn: ['auto', 'off'] } }
  }

  it('should refuse a llamacpp run without a GGUF (modelPath)', async () => {
    const { store, registry, catalog, restrict } = await setup()
    await expect(createRun(store, { model: MODEL, hardware: HARDWARE, engine: 'llamacpp', backend: 'llamacpp', restrict }, { catalog, registry, tenant: 't' }))
      .rejects.toThrow(/modelPath/)
  })

  it('should create and execute a run whose every number is a real llama.cpp measurement', async () => {
    const { store, registry, catalog, restrict } = await setup()
    const run = await createRun(store, {
      model: MODEL, hardware: HARDWARE, engine: 'llamacpp', backend: 'llamacpp', modelPath, restrict,
      repetitions: 2, warmups: 0, earlyStop: false, qualityGate: 'regression',
      workload: { batch: 1, promptTokens: 16, generatedTokens: 6 },
    }, { catalog, registry, tenant: 't' })
    expect(run.backend).toBe('node-llama-cpp') // named by the engine in the request
    const combos0 = await store.runs.combos(run.id)
    expect(combos0.map((c) => [c.isBaseline, c.combo.threads, c.combo.flash_attn])).toEqual([[true, '1', 'auto'], [false, '1', 'off']])
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    for (const c of combos) {
      expect([c.status, c.simulated, c.repetitions.length]).toEqual(['measured', false, 2])
      for (const r of c.repetitions) expect(r.decodeTps).toBeGreaterThan(0)
    }
    expect(combos[1]!.comparison).toMatchObject({ metric: 'throughputTps' })
    const s = done.summary as unknown as RunSummary
    expect(s.simulated).toBe(false)
    expect(s.devices.join(' ')).toMatch(/llama\.cpp/)
  }, 120_000)
})
