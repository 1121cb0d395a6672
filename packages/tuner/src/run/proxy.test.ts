import { describe, it, expect } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, type MeasurementBackend } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { deviceFingerprint, hardwareFingerprint } from '../fingerprint.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'
import { applyRun } from './apply.ts'
import { createRun } from './create.ts'
import { executeRun } from './execute.ts'
import type { RunSummary } from './summary.ts'

/**
 * A real (not simulated) backend that stands in for the engine and the device, as the WebGPU one
 * does: only matmul_path changes what it runs (cutlass is faster), and it says which device it
 * runs on before measuring.
 */
const proxyBackend = (device: string, log: string[] = []): MeasurementBackend => ({
  name: 'proxy', kind: 'measurement-backend', apiVersion: 1, simulated: false,
  proxy: { engine: true, device: true, runs: 'test GEMVs' },
  exercises: ['matmul_path'],
  equivalentValues: { matmul_path: [['cutlass', 'machete']] },
  device: async () => device,
  async measure(req) {
    log.push(JSON.stringify(req.combo))
    // attention_backend is not exercised, yet its noise could pick a "winner" among equals.
    const latencyMs = (req.combo.matmul_path === 'cutlass' ? 5 : 10) + (req.combo.attention_backend === 'flashinfer' ? -0.01 : 0)
    return { backend: 'proxy', simulated: false, device, repetitions: Array.from({ length: req.repetitions }, () => ({ latencyMs, throughputTps: 1000 / latencyMs })) }
  },
})

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'proxy', repetitions: 3, workload: { batch: 16, contextLength: 8192 }, qualityGate: 'manual' as const,
  restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

const setup = async (device = 'lavapipe test device') => {
  const store = await openStore(':memory:')
  const log: string[] = []
  const registry = createRegistry([testEngine(), proxyBackend(device, log)])
  return { store, registry, log, catalog: createCatalog() }
}

describe('proxy measurements', () => {
  it('should label a proxy run (of what, on what), report unexercised dimensions as not measured and keep them out of the winner', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, request, { catalog, registry, tenant: 't1' })
    const done = await executeRun(run.id, { store, registry })
    const s = done.summary as unknown as RunSummary
    expect(s.proxy).toEqual({ of: 'engine vllm 0.6.0 on NVIDIA H100 SXM', on: 'test GEMVs on lavapipe test device', engine: true, device: true })
    expect(s.notMeasured).toEqual(['activation_dtype', 'attention_backend', 'cuda_graph', 'fusion_strategy', 'kv_layout'])
    expect(s.winner!.combo).toEqual({ matmul_path: 'cutlass' })
    expect(s.winner!.proxy).toEqual(s.proxy)
    expect(s.winner!.notToldApart).toEqual({ matmul_path: ['machete'] })
    expect(s.cacheScope).toBe('tenant')
  })

  it('should warn when applying a proxy winner and keep unmeasured dimensions at the baseline', async () => {
    const { store, registry, catalog } = await setup()
    const run = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(run.id, { store, registry })
    const applied = await applyRun(store, registry, 't1', run.id, { force: true })
    expect(applied.warnings.join('\n')).toMatch(/not measured on the engine.*test GEMVs on lavapipe test device.*engine vllm 0\.6\.0 on NVIDIA H100 SXM/)
    expect(applied.warnings.join('\n')).toMatch(/attention_backend=/)
    const baseline = (await store.runs.combos(run.id)).find((c) => c.isBaseline)!
    expect(applied.combo.attention_backend).toBe(baseline.combo.attention_backend)
    expect(applied.combo.matmul_path).toBe('cutlass')
  })

  it('should key cached results by the device that measured, never by the target hardware', async () => {
    const { store, registry, catalog, log } = await setup('device A')
    const a = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(a.id, { store, registry })
    const keys = (await store.driver.query<{ cache_key: string; value: string }>('SELECT cache_key, value FROM result_cache')).map((r) => r)
    expect(keys.length).toBe(a.progress.total)
    for (const k of keys) {
      expect(k.cache_key).toContain(deviceFingerprint('device A'))
      expect(k.cache_key).not.toContain(hardwareFingerprint(HARDWARE as never))
      expect(JSON.parse(k.value)).toMatchObject({ device: 'device A', deviceFingerprint: deviceFingerprint('device A') })
    }
    // Another device behind the same backend name: nothing cached answers for it.
    const other = createRegistry([testEngine(), proxyBackend('device B', log)])
    const b = await createRun(store, request, { catalog, registry: other, tenant: 't1' })
    const before = log.length
    await executeRun(b.id, { store, registry: other })
    expect((await store.runs.combos(b.id)).some((c) => c.cached)).toBe(false)
    expect(log.length - before).toBe(b.progress.total)
    // The same device measuring for a different target reuses its own measurements, still labelled a proxy.
    const c = await createRun(store, { ...request, hardware: { ...HARDWARE, name: 'NVIDIA A100', memBwGbs: 2039 } }, { catalog, registry, tenant: 't1' })
    const done = await executeRun(c.id, { store, registry })
    expect((await store.runs.combos(c.id)).every((x) => x.cached)).toBe(true)
    expect((done.summary as unknown as RunSummary).proxy!.of).toMatch(/A100/)
  })

  it('should key a backend that cannot name its device in advance by the device its first measurement reports', async () => {
    const { store, catalog } = await setup()
    const { device: _omit, ...nameless } = proxyBackend('device X')
    const registry = createRegistry([testEngine(), nameless])
    const first = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(first.id, { store, registry })
    expect((await store.runs.combos(first.id)).some((c) => c.cached)).toBe(false)
    const keys = await store.driver.query<{ cache_key: string }>('SELECT cache_key FROM result_cache')
    expect(keys).toHaveLength(first.progress.total)
    for (const k of keys) expect(k.cache_key).toContain(deviceFingerprint('device X'))
    // The next run measures its baseline afresh (that names the device), then reads the cache.
    const second = await createRun(store, request, { catalog, registry, tenant: 't1' })
    await executeRun(second.id, { store, registry })
    const combos = await store.runs.combos(second.id)
    expect(combos.filter((c) => !c.cached).map((c) => c.isBaseline)).toEqual([true])
    // Another device behind the same name never gets device X's numbers.
    const { device: _o2, ...other } = proxyBackend('device Y')
    const registryY = createRegistry([testEngine(), other])
    const third = await createRun(store, request, { catalog, registry: registryY, tenant: 't1' })
    await executeRun(third.id, { store, registry: registryY })
    expect((await store.runs.combos(third.id)).some((c) => c.cached)).toBe(false)
  })
})

describe('tenant-scoped result cache', () => {
  it('should never answer one tenant\'s run with another tenant\'s measurements unless the cache is shared, and say when it is', async () => {
    const { store, registry, catalog } = await setup()
    const a = await createRun(store, request, { catalog, registry, tenant: 'acme' })
    await executeRun(a.id, { store, registry })
    const b = await createRun(store, request, { catalog, registry, tenant: 'globex' })
    await executeRun(b.id, { store, registry })
    expect((await store.runs.combos(b.id)).some((c) => c.cached)).toBe(false)
    const again = await createRun(store, request, { catalog, registry, tenant: 'globex' })
    await executeRun(again.id, { store, registry })
    expect((await store.runs.combos(again.id)).every((c) => c.cached)).toBe(true)
    // Opt-in sharing: entries stored under the shared scope answer any tenant, and the summary says so.
    const s1 = await createRun(store, request, { catalog, registry, tenant: 'acme' })
    await executeRun(s1.id, { store, registry, cacheScope: 'shared' })
    const s2 = await createRun(store, request, { catalog, registry, tenant: 'initech' })
    const shared = await executeRun(s2.id, { store, registry, cacheScope: 'shared' })
    expect((await store.runs.combos(s2.id)).every((c) => c.cached)).toBe(true)
    expect((shared.summary as unknown as RunSummary).cacheScope).toBe('shared')
  })
})
