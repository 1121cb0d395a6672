import { describe, expect, it } from 'vitest'
import { createRegistry, type HardwareCapability, type HardwareSpec, type LegalityContext } from '@kerneltune/core'
import { LLAMACPP_DIMENSIONS, LLAMACPP_RULES } from './catalog-extension.ts'
import { llamacppEngine, loadMode } from './engine.ts'

const translate = (combo: Record<string, string>, model = 'm.gguf') => llamacppEngine().translate(combo, { model })

describe('llamacppEngine.translate', () => {
  it('should spell every flag as llama-server does, in a stable order', async () => {
    const t = await translate({
      ctx_size: '4096', threads: '8', batch_size: '1024', ubatch_size: '256', flash_attn: 'on',
      cache_type_k: 'q8_0', cache_type_v: 'q4_0', gpu_layers: 'all',
    })
    expect(t).toMatchObject({
      ok: true,
      argv: ['llama-server', '-m', 'm.gguf', '--threads', '8', '--batch-size', '1024', '--ubatch-size', '256', '--flash-attn', 'on',
        '--cache-type-k', 'q8_0', '--cache-type-v', 'q4_0', '--n-gpu-layers', 'all', '--ctx-size', '4096'],
      env: {},
    })
  })

  it('should give the bare command for the defaults, leaving threads=auto out', async () => {
    expect(await translate({})).toMatchObject({ ok: true, argv: ['llama-server', '-m', 'm.gguf'] })
    expect(await translate({ threads: 'auto' })).toMatchObject({ argv: ['llama-server', '-m', 'm.gguf'] })
  })

  it('should map mmap and mlock onto --load-mode', async () => {
    expect(loadMode(undefined, undefined)).toBeUndefined()
    expect(loadMode('off', undefined)).toBe('none')
    expect(loadMode('on', 'off')).toBe('mmap')
    expect(loadMode(undefined, 'on')).toBe('mmap+mlock')
    expect(loadMode('off', 'on')).toBe('mlock')
    expect(await translate({ mmap: 'off' })).toMatchObject({ argv: ['llama-server', '-m', 'm.gguf', '--load-mode', 'none'] })
  })

  it('should refuse a quantized V cache with flash attention off, and note that auto turns it on', async () => {
    expect(await translate({ cache_type_v: 'q8_0', flash_attn: 'off' })).toMatchObject({ ok: false, dimension: 'cache_type_v', value: 'q8_0' })
    const auto = await translate({ cache_type_v: 'q8_0' })
    expect(auto.ok && auto.notes.join(' ')).toMatch(/turn flash attention on/)
    expect(await translate({ cache_type_k: 'q8_0', flash_attn: 'off' })).toMatchObject({ ok: true })
  })

  it('should express the core values llama.cpp has through ggml environment switches', async () => {
    expect(await translate({ cuda_graph: 'off' })).toMatchObject({ ok: true, env: { GGML_CUDA_DISABLE_GRAPHS: '1' } })
    expect(await translate({ fusion_strategy: 'none' })).toMatchObject({ env: { GGML_CUDA_DISABLE_FUSION: '1', GGML_VK_DISABLE_FUSION: '1' } })
    expect(await translate({ activation_dtype: 'bf16' })).toMatchObject({ env: { GGML_CUDA_CUBLAS_COMPUTE_TYPE: 'bf16' } })
    expect(await translate({ attention_backend: 'native', kv_layout: 'contiguous', cuda_graph: 'per-shape' })).toMatchObject({ ok: true, env: {} })
  })

  it('should refuse the core values llama.cpp cannot express, with a reason', async () => {
    for (const [dimension, value] of [
      ['attention_backend', 'flash_attn_v2'], ['kv_layout', 'paged'], ['matmul_path', 'machete'],
      ['activation_dtype', 'fp8_e4m3'], ['fusion_strategy', 'aggressive'], ['cuda_graph', 'dynamic'],
    ] as const) {
      const r = await translate({ [dimension]: value })
      expect(r).toMatchObject({ ok: false, dimension, value })
      expect(!r.ok && r.reason.length).toBeGreaterThan(20)
    }
  })

  it('should pass host and port options through and use a placeholder without a model', async () => {
    const t = await llamacppEngine().translate({}, { options: { host: '127.0.0.1', port: 8081 } })
    expect(t).toMatchObject({ argv: ['llama-server', '-m', '<model.gguf>', '--host', '127.0.0.1', '--port', '8081'] })
  })
})

describe('llama.cpp catalog extension', () => {
  const cpu: HardwareSpec = { name: 'CPU', vendor: 'cpu', kind: 'cpu', memBwGbs: 20, fp16Tflops: 1, unifiedMemory: true, sources: [] }
  const gpu: HardwareSpec = { ...cpu, name: 'H100', vendor: 'nvidia', kind: 'gpu' }
  const capability: HardwareCapability = { vendor: 'cpu', generation: 'x86', fp8: false, bf16: false, cudaGraphs: false, notes: [] }
  const ctx = (hardware: HardwareSpec): LegalityContext => ({ hardware, engine: 'llamacpp', capability })
  const rule = (id: string) => LLAMACPP_RULES.find((r) => r.id.endsWith(id))!

  it('should reach the registry through the public contract, with snake_case dimensions for llamacpp only', () => {
    const registry = createRegistry([llamacppEngine()])
    const [ext] = registry.catalogExtensions()
    expect(ext!.engine).toBe('llamacpp')
    expect(ext!.extension.dimensions.map((d) => d.id)).toEqual([
      'threads', 'batch_size', 'ubatch_size', 'flash_attn', 'cache_type_k', 'cache_type_v', 'gpu_layers', 'ctx_size', 'mmap', 'mlock',
    ])
    for (const d of LLAMACPP_DIMENSIONS) expect(d.engines).toEqual(['llamacpp'])
  })

  it('should mark a quantized V cache without flash attention illegal', () => {
    const r = rule('quantized-v-cache-needs-flash-attn')
    expect(r.kind).toBe('illegal')
    expect(r.violates({ cache_type_v: 'q4_0', flash_attn: 'off' }, ctx(cpu))).toBe(true)
    expect(r.violates({ cache_type_v: 'q4_0' }, ctx(cpu))).toBe(false)
    expect(r.violates({ cache_type_v: 'f16', flash_attn: 'off' }, ctx(cpu))).toBe(false)
  })

  it('should prune a micro-batch above the batch, counting defaults (batch 2048, ubatch 512)', () => {
    const r = rule('ubatch-above-batch')
    expect(r.violates({ batch_size: '256', ubatch_size: '512' }, ctx(cpu))).toBe(true)
    expect(r.violates({ batch_size: '256' }, ctx(cpu))).toBe(true)
    expect(r.violates({ ubatch_size: '1024' }, ctx(cpu))).toBe(false)
  })

  it('should prune GPU layers on a machine without a GPU only', () => {
    const r = rule('gpu-layers-without-gpu')
    expect(r.violates({ gpu_layers: '16' }, ctx(cpu))).toBe(true)
    expect(r.violates({ gpu_layers: '0' }, ctx(cpu))).toBe(false)
    expect(r.violates({ gpu_layers: 'all' }, ctx(gpu))).toBe(false)
  })
})
