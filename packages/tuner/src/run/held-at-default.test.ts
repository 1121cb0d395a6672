/**
 * A backend that cannot exercise a dimension (MeasurementBackend.ignores) does not multiply a
 * run's combinations by it: the run holds it at its default and its summary says so.
 */
import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, executeRun, type RunSummary } from '../index.ts'
import { HARDWARE, MODEL, testBackend, testEngine } from '../test-fixtures.ts'

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 2, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], activation_dtype: ['bf16', 'fp8_e4m3'] },
}

describe('dimensions a backend ignores', () => {
  it('should hold them at their default, say so in the summary, and refuse a restrict that asks for another value', async () => {
    const catalog = createCatalog()
    const open = async (ignores?: string[]) => {
      const store = await openStore(':memory:')
      const registry = createRegistry([testEngine(), { ...testBackend(), ...(ignores ? { ignores } : {}) }])
      return { store, registry }
    }
    const all = await open()
    const free = await createRun(all.store, request, { catalog, registry: all.registry, tenant: 't' })
    const held = await open(['cuda_graph'])
    const run = await createRun(held.store, request, { catalog, registry: held.registry, tenant: 't' })
    const combos = await held.store.runs.combos(run.id)
    expect(new Set(combos.map((c) => c.combo.cuda_graph))).toEqual(new Set(['per-shape']))
    expect(combos.length).toBeLessThan((await all.store.runs.combos(free.id)).length)
    const done = await executeRun(run.id, { store: held.store, registry: held.registry })
    expect((done.summary as unknown as RunSummary).heldAtDefault).toEqual({ cuda_graph: 'per-shape' })
    await expect(createRun(held.store, { ...request, restrict: { ...request.restrict, cuda_graph: ['off'] } }, { catalog, registry: held.registry, tenant: 't' })).rejects.toThrow(/cuda_graph: backend analytical cannot exercise it \(held at per-shape\)/)
  })
})
