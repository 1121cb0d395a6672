import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, type EnginePlugin } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, executeRun } from '@kerneltune/tuner'
import { checkMeasurementBackend } from '../conformance.ts'
import { CONFORMANCE_REQUEST, HARDWARE, MODEL } from '../test-fixtures.ts'
import { jsGemvBackend } from './js-gemv-backend.ts'

// The guide's worked example: it conforms, registers, and measures a Tier 1 run.
const engine: EnginePlugin = {
  name: 'vllm', kind: 'engine', apiVersion: 1, displayName: 'Test engine', defaultVersion: '0.6.0', supportedVersions: () => ['0.6.0'],
  translate: (combo, ctx) => ({ ok: true, engine: 'vllm', version: ctx?.version ?? '0.6.0', argv: Object.entries(combo).map(([k, v]) => `--${k}=${v}`), env: {}, files: {}, notes: [] }),
}

describe('the js-gemv example backend', () => {
  it('should pass the conformance check, every check run', async () => {
    const report = await checkMeasurementBackend(jsGemvBackend(), CONFORMANCE_REQUEST)
    expect(report).toEqual({ problems: [], notRun: [], device: 'this CPU (JavaScript)' })
  })

  it('should measure a Tier 1 run through the registry, every result real', async () => {
    const store = await openStore(':memory:')
    const registry = createRegistry([engine, jsGemvBackend()])
    const run = await createRun(store, {
      model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'js-gemv', repetitions: 3, workload: { batch: 1, contextLength: 1024 },
      restrict: { attention_backend: ['flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['off'], activation_dtype: ['fp16', 'fp8_e4m3'] },
    }, { catalog: createCatalog(), registry, tenant: 't' })
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    const combos = await store.runs.combos(run.id)
    expect(combos.map((c) => [c.status, c.simulated, c.repetitions.length])).toEqual([['measured', false, 3], ['measured', false, 3]])
    await store.close()
  })
})
