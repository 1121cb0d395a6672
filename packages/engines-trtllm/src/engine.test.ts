import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Translation } from '@kerneltune/core'
import { inventoryFromJson, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { RUNTIME_FILE, trtllmEngine } from './index.ts'

// The inventories are read-only reference data outside the repository; tests skip without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/tensorrt_llm.json`
// Runtime parameter names come from the tensorrtllm backend, which the Triton inventory records.
const TRITON = `${DIR}/triton.json`
const HAVE = existsSync(FILE) && existsSync(TRITON)

function inventory(): EngineInventory {
  const backend = JSON.parse(readFileSync(TRITON, 'utf8')).tensorrtllm_backend_parameters
  const keys = new Set<string>(backend.all_keys_in_template)
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const name of Object.keys(t.files)) if (name !== RUNTIME_FILE) problems.push(`unexpected file ${name}`)
    if (!t.files[RUNTIME_FILE]) return problems
    for (const [key, value] of Object.entries(JSON.parse(t.files[RUNTIME_FILE]))) {
      if (!keys.has(key)) problems.push(`runtime parameter ${key} is not a tensorrtllm backend parameter`)
      if (backend[key]?.type === 'bool' && typeof value !== 'boolean') problems.push(`runtime parameter ${key} must be a boolean`)
    }
    return problems
  }
  return inventoryFromJson(JSON.parse(readFileSync(FILE, 'utf8')), check)
}

testEngine({
  engine: () => trtllmEngine(),
  inventory: (version) => (HAVE && version === '1.0' ? inventory() : undefined),
  skip: HAVE ? {} : { inventory: `no inventory at ${FILE}` },
})

const t = (combo: Record<string, string>) => trtllmEngine().translate(combo, { model: 'ckpt' })
const flags = (combo: Record<string, string>) => {
  const r = t(combo) as Translation
  return Object.fromEntries(r.argv.slice(5).flatMap((w, i, a) => (i % 2 === 0 ? [[w, a[i + 1]]] : [])))
}
const runtime = (combo: Record<string, string>) => JSON.parse((t(combo) as Translation).files[RUNTIME_FILE] ?? '{}')

describe('trtllmEngine', () => {
  it('should map attention backends to the gpt_attention plugin and context FMHA, refusing the rest', () => {
    expect(flags({ attention_backend: 'flash_attn_v2', activation_dtype: 'bf16' })).toMatchObject({ '--gpt_attention_plugin': 'bfloat16', '--context_fmha': 'enable' })
    expect(flags({ attention_backend: 'native' })).toMatchObject({ '--gpt_attention_plugin': 'auto', '--context_fmha': 'disable' })
    expect(flags({ attention_backend: 'paged_attention' })).toMatchObject({ '--kv_cache_type': 'paged' })
    for (const a of ['flash_attn_v3', 'flashinfer', 'xformers']) expect(t({ attention_backend: a })).toMatchObject({ ok: false, dimension: 'attention_backend', value: a })
  })

  it('should map KV layouts to --kv_cache_type and chunked context to a runtime parameter', () => {
    expect(flags({ kv_layout: 'contiguous' })).toMatchObject({ '--kv_cache_type': 'continuous', '--use_paged_context_fmha': 'disable' })
    expect(flags({ kv_layout: 'chunked' })).toMatchObject({ '--kv_cache_type': 'paged', '--use_paged_context_fmha': 'enable' })
    expect(runtime({ kv_layout: 'chunked' })).toEqual({ enable_chunked_context: true })
    expect(t({ attention_backend: 'paged_attention', kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout' })
    expect(t({ attention_backend: 'native', kv_layout: 'chunked' })).toMatchObject({ ok: false, dimension: 'kv_layout' })
  })

  it('should map cuBLAS to --gemm_plugin and CUTLASS to the fp8 plugins, refusing Triton and Machete', () => {
    expect(flags({ matmul_path: 'cublas', activation_dtype: 'fp16' })).toMatchObject({ '--gemm_plugin': 'float16' })
    expect(flags({ matmul_path: 'cublas', activation_dtype: 'fp8_e4m3' })).toMatchObject({ '--gemm_plugin': 'fp8', '--use_fp8_context_fmha': 'enable' })
    expect(flags({ matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' })).toMatchObject({ '--low_latency_gemm_plugin': 'fp8' })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'bf16' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'triton' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'machete' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
  })

  it('should refuse e5m2 activations', () => {
    expect(t({ activation_dtype: 'fp8_e5m2' })).toMatchObject({ ok: false, dimension: 'activation_dtype' })
  })

  it('should map fusion strategies to the fusion plugins', () => {
    expect(flags({ fusion_strategy: 'none' })).toEqual({ '--use_fused_mlp': 'disable' })
    expect(flags({ fusion_strategy: 'conservative' })).toEqual({ '--use_fused_mlp': 'enable' })
    expect(flags({ fusion_strategy: 'aggressive', activation_dtype: 'fp8_e4m3' })).toMatchObject({
      '--reduce_fusion': 'enable', '--norm_quant_fusion': 'enable', '--gemm_swiglu_plugin': 'fp8',
    })
  })

  it('should map CUDA graphs to cuda_graph_mode and refuse dynamic graphs', () => {
    expect(runtime({ cuda_graph: 'off' })).toEqual({ cuda_graph_mode: false })
    expect(runtime({ cuda_graph: 'per-shape' })).toEqual({ cuda_graph_mode: true })
    expect(t({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph' })
  })
})
