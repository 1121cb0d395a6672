import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, type MeasurementBackend, type RegistryEntry } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, evaluateCombo, executeRun, type RunSummary } from '../index.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'

/**
 * A backend that, like gpu-kernels, selects the approved entry of its family from what the run
 * passes (the real selection is kernel-lab's; here the plumbing is under test) and says so.
 */
const kernelBackend = (seen: (readonly RegistryEntry[] | undefined)[]): MeasurementBackend => ({
  name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
  async measure(request) {
    seen.push(request.registryKernels)
    const entries = request.registryKernels ?? []
    return {
      backend: 'analytical', simulated: true, device: 'test fixture (simulated)',
      repetitions: Array.from({ length: request.repetitions }, () => ({ latencyMs: 10, throughputTps: 100 })),
      ...(request.registryKernels ? {
        registryKernels: entries.map((e) => ({ id: e.id, name: e.name, kernelFamily: e.kernelFamily, selection: e.status === 'approved' ? 'selected' as const : 'excluded' as const, used: e.status === 'approved', why: e.status })),
      } : {}),
    }
  },
})

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, earlyStop: false, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'], activation_dtype: ['fp16'] },
}

const setup = async () => {
  const store = await openStore(':memory:')
  const seen: (readonly RegistryEntry[] | undefined)[] = []
  const registry = createRegistry([testEngine(), kernelBackend(seen)])
  const submit = (tenant: string, name: string) => store.registry.submit({ tenant, actor: 'alice', name, kernelFamily: 'gemv/f16', provider: 'template', source: 'export default () => null', metadata: {} })
  const approved = await submit('t1', 'a')
  await store.registry.approve('t1', approved.id, 'bob', 'reviewed')
  const proposed = await submit('t1', 'p')
  const other = await submit('t2', 'other tenant')
  return { store, registry, seen, catalog: createCatalog(), ids: { approved: approved.id, proposed: proposed.id, other: other.id } }
}

describe('registry kernels in runs', () => {
  it('should pass only the run tenant\'s entries, store what each combination selected or excluded, and summarise it', async () => {
    const { store, registry, seen, catalog, ids } = await setup()
    const run = await createRun(store, { ...request, registryKernels: true }, { catalog, registry, tenant: 't1' })
    const done = await executeRun(run.id, { store, registry })
    expect(done.status).toBe('succeeded')
    expect(seen.length).toBe(2)
    for (const s of seen) expect(s!.map((e) => e.id).sort()).toEqual([ids.approved, ids.proposed].sort())
    for (const c of await store.runs.combos(run.id)) {
      expect(c.cached).toBe(false)
      expect(c.kernels?.map((k) => [k.id, k.selection, k.used]).sort()).toEqual([[ids.approved, 'selected', true], [ids.proposed, 'excluded', false]].sort())
    }
    const s = done.summary as unknown as RunSummary
    expect(s.registryKernels?.find((k) => k.id === ids.approved)).toMatchObject({ selection: 'selected', usedBy: [0, 1] })
    expect(s.registryKernels?.find((k) => k.id === ids.proposed)).toMatchObject({ selection: 'excluded', usedBy: [], why: 'proposed' })

    // Such runs never answer from the cache: the same run again measures again.
    const again = await createRun(store, { ...request, registryKernels: true }, { catalog, registry, tenant: 't1' })
    await executeRun(again.id, { store, registry })
    expect((await store.runs.combos(again.id)).some((c) => c.cached)).toBe(false)
    expect(seen.length).toBe(4)
  })

  it('should pass nothing to runs that did not opt in, and record the kernels on the distributed path too', async () => {
    const { store, registry, seen, catalog, ids } = await setup()
    const plain = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(plain.id, { store, registry })
    expect(seen.every((s) => s === undefined)).toBe(true)
    expect((await store.runs.combos(plain.id)).every((c) => c.kernels === undefined)).toBe(true)
    expect((plain.summary as unknown as RunSummary | null)?.registryKernels).toBeUndefined()

    const run = await createRun(store, { ...request, registryKernels: true }, { catalog, registry, tenant: 't1' })
    await store.runs.setStatus(run.id, 'running')
    expect(await evaluateCombo(run.id, 0, { store, registry })).toMatchObject({ outcome: 'stored', status: 'measured' })
    const [c0] = await store.runs.combos(run.id)
    expect(c0!.kernels?.find((k) => k.id === ids.approved)).toMatchObject({ selection: 'selected', used: true })
  })
})
