import { describe, expect, it } from 'vitest'
import { ENGINE_NAMES, engineRegistry, loadEngine } from './index.ts'
import { backendPlugins, compose, defaultRegistry, enginePlugins } from './node.ts'
import { buildCatalog } from '@kerneltune/catalog'
import { parseWith } from '@kerneltune/core'
import { createRun, executeRun, planCombos, RunRequestSchema } from '@kerneltune/tuner'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { synthOnnxLlama } from '@kerneltune/onnx'

describe('the composition root', () => {
  it('should register each engine exactly once, under the names ENGINE_NAMES lists', () => {
    const names = enginePlugins().map((e) => e.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names).toEqual([...ENGINE_NAMES])
    expect(defaultRegistry().list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
  })

  it('should register every built-in backend and the search strategies, and build the catalog from them', async () => {
    const registry = defaultRegistry()
    expect(registry.list('measurement-backend').map((b) => b.name)).toEqual(backendPlugins().map((b) => b.name))
    expect(registry.list('measurement-backend').map((b) => b.name)).toEqual(['analytical', 'gpu-kernels', 'node-llama-cpp', 'server', 'onnxruntime'])
    expect(registry.list('search-strategy').length).toBeGreaterThan(0)
    const c = await compose({ databaseUrl: ':memory:', env: {} })
    try {
      expect(c.registry.list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
      // llama.cpp's own dimensions are in the catalog: its engine's extension was registered.
      expect(c.catalog.dimensionsFor('llamacpp').map((d) => d.id)).toContain('flash_attn')
      expect((await c.store.runs.list(null, { limit: 1 })).total).toBe(0)
    } finally {
      await c.close()
    }
  })
})

describe('the engine registry', () => {
  it('should hold the same engines as the full registry, and no backend or strategy', async () => {
    const registry = await engineRegistry()
    expect(registry.list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
    expect(registry.list('measurement-backend')).toEqual([])
    expect(registry.list('search-strategy')).toEqual([])
  })

  it('should load only the engines named, with those they work with', async () => {
    expect((await engineRegistry(['vllm'])).list('engine').map((e) => e.name)).toEqual(['vllm'])
    expect((await engineRegistry(['triton'])).list('engine').map((e) => e.name)).toEqual(['trtllm', 'trtllm-serve', 'triton', 'vllm'].sort((a, b) => ENGINE_NAMES.indexOf(a as never) - ENGINE_NAMES.indexOf(b as never)))
  })

  it('should load one engine by name and refuse an unknown one', async () => {
    expect((await loadEngine('tgi')).name).toBe('tgi')
    await expect(loadEngine('nope')).rejects.toMatchObject({ code: 'PLUGIN_NOT_FOUND' })
  })
})

describe('llama.cpp server settings in runs', () => {
  const request = {
    model: { name: 'tiny', paramsB: 0.01, hiddenDim: 64, numLayers: 2, numHeads: 4, numKvHeads: 4, intermediateDim: 128, quant: 'F16' as const },
    hardware: { name: 'cpu', vendor: 'cpu' as const, memBwGbs: 20, fp16Tflops: 0.5 },
    engine: 'llamacpp', modelPath: '/nowhere/tiny.gguf', mode: 'quick' as const,
    // Every translator dimension at one value: what varies is the server's settings.
    restrict: { threads: ['auto'], batch_size: ['2048'], ubatch_size: ['512'], flash_attn: ['auto'], cache_type_k: ['f16'], cache_type_v: ['f16'], gpu_layers: ['auto'], ctx_size: ['0'], mmap: ['on'], mlock: ['off'] },
  }
  const plan = async (backend: string, extra: Record<string, unknown> = {}) => {
    const registry = defaultRegistry()
    return planCombos(parseWith(RunRequestSchema, { ...request, backend, ...extra }, 'run request'), { registry, catalog: buildCatalog(registry) })
  }

  it('should search slots and continuous batching on the server backend', async () => {
    const p = await plan('server', { restrict: { ...request.restrict, parallel: ['auto', '1'], cont_batching: ['on', 'off'] } })
    expect(new Set(p.combos.map((c) => `${c.combo.parallel}/${c.combo.cont_batching}`)).size).toBe(4)
    expect(p.heldAtDefault).toEqual({})
  })

  it('should hold them at their defaults on node-llama-cpp, which runs in process and has no slots, and say so', async () => {
    const server = await plan('server')
    const inProcess = await plan('node-llama-cpp')
    expect(inProcess.heldAtDefault).toEqual({ parallel: 'auto', cont_batching: 'on' })
    expect(inProcess.combos.every((c) => c.combo.parallel === 'auto' && c.combo.cont_batching === 'on')).toBe(true)
    expect(server.combos.length).toBeGreaterThan(inProcess.combos.length)
    await expect(plan('node-llama-cpp', { restrict: { ...request.restrict, parallel: ['2'] } })).rejects.toThrow(/parallel: backend node-llama-cpp cannot exercise it \(held at auto\)/)
  })

  it('should translate the server settings of the registered llamacpp engine to llama-server flags', async () => {
    const engine = await loadEngine('llamacpp')
    const t = await engine.translate({ parallel: '2', cont_batching: 'off', threads: '2' })
    expect(t.ok && t.argv).toEqual(expect.arrayContaining(['--parallel', '2', '--no-cont-batching', '--threads', '2']))
  })
})

describe('ONNX Runtime CPU settings in runs', () => {
  it('should let a run name the onnx-cpu engine and the onnxruntime backend, and measure its combinations on real ORT sessions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-compose-onnx-'))
    const modelPath = join(dir, 'tiny-q4.onnx')
    writeFileSync(modelPath, synthOnnxLlama({ params: 2e6, vocabSize: 320, weights: 'q4', seed: 3 }).bytes)
    const c = await compose({ databaseUrl: ':memory:' })
    try {
      const request = {
        model: { name: 'tiny', paramsB: 0.002, quant: 'Q4_0' as const }, hardware: { name: 'cpu', vendor: 'cpu' as const, memBwGbs: 20, fp16Tflops: 0.5 },
        engine: 'onnx-cpu', backend: 'onnxruntime', modelPath, mode: 'quick' as const, repetitions: 2, warmups: 0, earlyStop: false,
        workload: { batch: 1, promptTokens: 8, generatedTokens: 4 },
        restrict: { fusion_strategy: ['aggressive'], ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model'], ort_execution_mode: ['sequential'], ort_inter_op_threads: ['auto'], ort_cpu_mem_arena: ['on'], ort_mem_pattern: ['on'], ort_intra_op_spinning: ['on'] },
      }
      const plan = await planCombos(parseWith(RunRequestSchema, request, 'run request'), { registry: c.registry, catalog: c.catalog })
      expect(plan.backend).toBe('onnxruntime')
      expect(new Set(plan.combos.map((x) => x.combo.ort_intra_op_threads))).toEqual(new Set(['auto', '1']))
      const run = await createRun(c.store, request, { registry: c.registry, catalog: c.catalog, tenant: 't' })
      const done = await executeRun(run.id, { store: c.store, registry: c.registry })
      expect([done.status, done.error]).toEqual(['succeeded', null])
      const combos = await c.store.runs.combos(run.id)
      expect(combos.length).toBe(plan.combos.length)
      for (const x of combos) {
        expect([x.status, x.simulated]).toEqual(['measured', false])
        for (const r of x.repetitions) expect(r.decodeTps).toBeGreaterThan(0)
      }
    } finally {
      await c.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
