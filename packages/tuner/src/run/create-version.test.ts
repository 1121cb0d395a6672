import { describe, it, expect } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, type CatalogExtension } from '@kerneltune/core'
import { planCombos } from '../index.ts'
import { HARDWARE, MODEL, testBackend, testEngine } from '../test-fixtures.ts'

// A catalog rule that holds only for some releases must prune a run for those releases and not
// for the others: planCombos has to pass the run's engine version to the catalog.
describe('planCombos', () => {
  const ext: CatalogExtension = {
    dimensions: [],
    rules: [{ id: 'vllm/no-flashinfer-before-0.7', kind: 'illegal', reason: 'not in that release', source: 'test', dimensions: ['attention_backend'], versions: { until: '0.7.0' }, violates: (c) => c.attention_backend === 'flashinfer' }],
  }
  const engine = { ...testEngine(), defaultVersion: '0.7.0', supportedVersions: () => ['0.6.0', '0.7.0'] }
  const deps = { registry: createRegistry([engine, testBackend()]), catalog: createCatalog({ extensions: [{ engine: 'vllm', extension: ext }] }) }
  const request = {
    model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, mode: 'exhaustive' as const, maxCombos: 100, workload: { batch: 1, contextLength: 512 },
    restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'], activation_dtype: ['bf16'] },
  }
  const backends = async (engineVersion: string) => (await planCombos({ ...request, engineVersion } as never, deps)).combos.map((c) => c.combo.attention_backend).sort()

  it('should apply a version-ranged rule only to the releases it covers', async () => {
    expect(await backends('0.6.0')).toEqual(['flash_attn_v2'])
    expect(await backends('0.7.0')).toEqual(['flash_attn_v2', 'flashinfer'])
  })
})
