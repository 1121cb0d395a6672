import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { HardwareSpec, Translation } from '@kerneltune/core'
import { inventoryFromJson, inventoryProblems, testEngine } from '@kerneltune/engine-conformance'
import { RUNTIME_FILE, TRTLLM_CATALOG, TRTLLM_INVENTORIES, trtllmEngine } from './index.ts'

// The reference inventories are read-only data outside the repository; the cross-check skips without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/tensorrt_llm.json`
// Runtime parameter names come from the tensorrtllm backend, which the Triton inventory records.
const TRITON = `${DIR}/triton.json`
const HAVE = existsSync(FILE) && existsSync(TRITON)

// The inventory is the plugin's own, per release (src/releases.ts).
testEngine({ engine: () => trtllmEngine() })

const device = (computeCapability: string): HardwareSpec => ({ name: `sm ${computeCapability}`, vendor: 'nvidia', kind: 'gpu', computeCapability, sources: ['test'] }) as HardwareSpec
const t = (combo: Record<string, string>, hardware?: HardwareSpec) => trtllmEngine().translate(combo, hardware ? { model: 'ckpt', hardware } : { model: 'ckpt' })
const flags = (combo: Record<string, string>, hardware?: HardwareSpec) => {
  const r = t(combo, hardware) as Translation
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

  it('should map fusion strategies to the fusion plugins, with the fp8 GEMM+SwiGLU plugin on Hopper only', () => {
    expect(flags({ fusion_strategy: 'none' })).toEqual({ '--use_fused_mlp': 'disable' })
    expect(flags({ fusion_strategy: 'conservative' })).toEqual({ '--use_fused_mlp': 'enable' })
    const aggressive = { fusion_strategy: 'aggressive', activation_dtype: 'fp8_e4m3' }
    expect(flags(aggressive, device('9.0'))).toMatchObject({ '--reduce_fusion': 'enable', '--norm_quant_fusion': 'enable', '--gemm_swiglu_plugin': 'fp8' })
    for (const hw of [undefined, device('8.9'), device('10.0'), device('12.0')]) {
      expect(flags(aggressive, hw)).not.toHaveProperty('--gemm_swiglu_plugin')
      expect((t(aggressive, hw) as Translation).notes.join(' ')).toMatch(/gemm_swiglu_plugin fp8 is left out: it runs on Hopper/)
    }
  })

  it('should refuse the CUTLASS fp8 GEMM plugin on SM 100 only, as plugin.py does', () => {
    const cutlass = { matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' }
    expect(t(cutlass, device('10.0'))).toMatchObject({ ok: false, dimension: 'matmul_path', value: 'cutlass', reason: expect.stringContaining('not supported on SM 100') })
    for (const hw of [device('9.0'), device('8.9'), device('10.3'), device('12.0'), undefined]) expect(flags(cutlass, hw)).toMatchObject({ '--low_latency_gemm_plugin': 'fp8' })
    const rule = TRTLLM_CATALOG.rules.find((r) => r.id === 'trtllm/cutlass-fp8-gemm-not-on-sm100')!
    const ctx = (smVersion: number) => ({ hardware: device('10.0'), engine: 'trtllm', capability: { vendor: 'nvidia' as const, smVersion, generation: 'x', fp8: true, bf16: true, cudaGraphs: true, notes: [] } })
    expect(rule.violates(cutlass, ctx(100))).toBe(true)
    expect(rule.violates(cutlass, ctx(90))).toBe(false)
    expect(rule.violates({ ...cutlass, activation_dtype: 'bf16' }, ctx(100))).toBe(false)
  })

  it('should write --kv_cache_type, never the deprecated --paged_kv_cache (VERSIONS.md §0, TRT-LLM row 2)', () => {
    for (const kv_layout of ['contiguous', 'paged', 'chunked']) expect((t({ kv_layout }) as Translation).argv).not.toContain('--paged_kv_cache')
    expect(flags({ kv_layout: 'paged' })).toEqual({ '--kv_cache_type': 'paged' })
  })

  it('should default to 1.0, keep its inventory with evidence, and reject other versions with the supported list', () => {
    expect(trtllmEngine().defaultVersion).toBe('1.0')
    expect(trtllmEngine().inventory('1.0')?.evidence?.join(' ')).toMatch(/65f1d153/)
    expect(() => trtllmEngine().translate({}, { version: '0.10.0' })).toThrow(/supported versions: 1\.0/)
    const stray = { ...(t({}) as Translation), argv: ['trtllm-build', '--paged_kv_cache', 'enable', '--gemm_plugin', 'int8'] }
    expect(inventoryProblems(stray, TRTLLM_INVENTORIES['1.0'])).toEqual(['--gemm_plugin=int8 is not one of the inventory\'s values (auto, float16, float32, bfloat16, int32, fp8, nvfp4, disable)'])
  })

  it('should map CUDA graphs to cuda_graph_mode and refuse dynamic graphs', () => {
    expect(runtime({ cuda_graph: 'off' })).toEqual({ cuda_graph_mode: false })
    expect(runtime({ cuda_graph: 'per-shape' })).toEqual({ cuda_graph_mode: true })
    expect(t({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph' })
  })
})

describe.skipIf(requireOrSkip(HAVE, `reference: ${FILE} or ${TRITON} is absent (TensorRT-LLM inventory)`))(`trtllm inventory against ${FILE}`, () => {
  it('should hold the reference build flags and tensorrtllm backend parameter names', () => {
    const ref = inventoryFromJson(HAVE ? JSON.parse(readFileSync(FILE, 'utf8')) : {})
    const ours = TRTLLM_INVENTORIES['1.0']
    expect(Object.keys(ours.flags).sort()).toEqual(Object.keys(ref.flags).sort())
    for (const [name, entry] of Object.entries(ours.flags)) expect(entry.choices ?? []).toEqual(ref.flags[name]!.choices ?? [])
    const keys: string[] = HAVE ? JSON.parse(readFileSync(TRITON, 'utf8')).tensorrtllm_backend_parameters.all_keys_in_template : []
    for (const key of ours.configKeys![RUNTIME_FILE]!) expect(keys).toContain(key)
  })
})
