/**
 * The newcomer's path, end to end: an engine written as one package against the public contract
 * (examples/engine-llama-server: a translator and a serving capability, nothing else), registered
 * once, is swept by a stored run through the tuner and the generic `server` backend, every
 * combination a real llama-server launched from the example's own translation.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCatalog } from '@kerneltune/catalog'
import { createRegistry } from '@kerneltune/core'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { openStore } from '@kerneltune/store'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { createRun, executeRun, type RunSummary } from '@kerneltune/tuner'
import { llamaServerEngine } from 'kerneltune-engine-llama-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverRunBackend } from './server-run-backend.node.ts'

const found = findLlamaServer(LLAMACPP_VERSION)
const TARGET = { id: 'h100-sxm', name: 'NVIDIA H100 SXM5 80GB', vendor: 'nvidia' as const, kind: 'gpu' as const, memBwGbs: 3350, fp16Tflops: 989.4, smCount: 132, memoryGb: 80, computeCapability: '9.0', architecture: 'Hopper', unifiedMemory: false, sources: ['NVIDIA H100 datasheet'] }
const dir = mkdtempSync(join(tmpdir(), 'example-engine-'))
const modelPath = join(dir, 'tiny-q8_0.gguf')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(requireOrSkip(found !== undefined, `example engine sweep: no llama-server binary; ${BUILD_HINT}`, { runtimes: ['node'] }))('an engine package with a serving capability, swept end to end', () => {
  beforeAll(async () => {
    await writeGgufFile(modelPath, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })

  it('should measure every combination as a real server launched from the engine\'s own translation', async () => {
    // Registered once: the engine, and the generic backend that finds it in the same registry.
    const registry = createRegistry()
    registry.register(llamaServerEngine())
    registry.register(serverRunBackend({ engines: registry, binaries: { 'llama-server': found!.path }, requests: 2 }))
    const catalog = buildCatalog(registry)
    const pinned = Object.fromEntries(catalog.dimensionsFor('llama-server').map((d) => [d.id, [d.defaultValue]]))
    const store = await openStore(':memory:')
    // The catalog's legality rules are the target's (FlashAttention-2 needs sm_80+, so the target
    // is an H100); every number is measured on this machine's llama-server, as the run records.
    const run = await createRun(store, {
      model: { name: 'tiny', paramsB: 0.001 }, hardware: TARGET,
      engine: 'llama-server', backend: 'server', modelPath, restrict: { ...pinned, attention_backend: ['flash_attn_v2', 'native'] },
      repetitions: 2, warmups: 0, earlyStop: false, qualityGate: 'regression',
      workload: { batch: 1, promptTokens: 8, generatedTokens: 4 },
    }, { catalog, registry, tenant: 't' })
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    expect(combos.map((c) => c.combo.attention_backend).sort()).toEqual(['flash_attn_v2', 'native'])
    for (const c of combos) {
      expect([c.status, c.simulated, c.repetitions.length]).toEqual(['measured', false, 2])
      for (const r of c.repetitions) expect(r.ttftMs).toBeGreaterThan(0)
    }
    const s = done.summary as unknown as RunSummary
    expect(s.simulated).toBe(false)
    expect(s.devices.join(' ')).toMatch(/^CPU: /)
    await store.close()
  }, 180_000)
})
