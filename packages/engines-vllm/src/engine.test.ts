import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES, type Translation } from '@kerneltune/core'
import { inventoryFromJson, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { vllmEngine } from './index.ts'

// The inventories are read-only reference data outside the repository; tests skip without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/vllm.json`
const HAVE = existsSync(FILE)

interface VllmJson {
  compilation_config_fields: Record<string, { choices?: unknown[]; fields?: Record<string, string> }>
}

/** Checks the JSON of --compilation-config against CompilationConfig's fields. */
function compilationProblems(json: VllmJson) {
  return (t: Translation): string[] => {
    const at = t.argv.indexOf('--compilation-config')
    if (at < 0) return []
    const config = JSON.parse(t.argv[at + 1]!) as Record<string, unknown>
    const fields = json.compilation_config_fields
    const problems: string[] = []
    for (const [key, value] of Object.entries(config)) {
      const field = fields[key]
      if (!field) problems.push(`compilation_config.${key} is not a CompilationConfig field`)
      else if (field.choices && !field.choices.includes(value)) problems.push(`compilation_config.${key}=${String(value)} is not accepted`)
      else if (key === 'pass_config') {
        for (const pass of Object.keys(value as object)) {
          if (!(pass in field.fields!)) problems.push(`pass_config.${pass} is not a PassConfig field`)
        }
      }
    }
    return problems
  }
}

function inventory(): EngineInventory | undefined {
  if (!HAVE) return undefined
  const json = JSON.parse(readFileSync(FILE, 'utf8'))
  return inventoryFromJson(json, compilationProblems(json))
}

testEngine({
  engine: () => vllmEngine(),
  inventory: (version) => (version === '0.11' ? inventory() : undefined),
  skip: HAVE ? {} : { inventory: `no inventory at ${FILE}` },
})

const t = (combo: Record<string, string>) => vllmEngine().translate(combo, { model: 'm' })

describe('vllmEngine', () => {
  it('should map every attention backend to its VLLM_ATTENTION_BACKEND, or refuse paged_attention', () => {
    expect(t({ attention_backend: 'flash_attn_v2' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLASH_ATTN', VLLM_FLASH_ATTN_VERSION: '2' } })
    expect(t({ attention_backend: 'flash_attn_v3' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLASH_ATTN', VLLM_FLASH_ATTN_VERSION: '3' } })
    expect(t({ attention_backend: 'flashinfer' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } })
    expect(t({ attention_backend: 'xformers' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'XFORMERS' } })
    expect(t({ attention_backend: 'native' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLEX_ATTENTION' } })
    expect(t({ attention_backend: 'paged_attention' })).toMatchObject({ ok: false, dimension: 'attention_backend' })
  })

  it('should refuse a contiguous KV cache and map paged and chunked to chunked prefill off and on', () => {
    expect(t({ kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout', value: 'contiguous' })
    expect(t({ kv_layout: 'paged' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--no-enable-chunked-prefill'] })
    expect(t({ kv_layout: 'chunked' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--enable-chunked-prefill'] })
  })

  it('should map each matmul path according to the activation dtype', () => {
    expect(t({ matmul_path: 'cublas', activation_dtype: 'bf16' })).toMatchObject({ ok: true, argv: ['vllm', 'serve', 'm', '--dtype', 'bfloat16'] })
    expect(t({ matmul_path: 'cublas', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: true, argv: ['vllm', 'serve', 'm', '--quantization', 'fp8'] })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'fp16' })).toMatchObject({ ok: false, dimension: 'matmul_path', value: 'cutlass' })
    expect(t({ matmul_path: 'machete' })).toMatchObject({ env: { VLLM_DISABLED_KERNELS: 'MarlinLinearKernel' } })
    expect(t({ matmul_path: 'machete', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'triton' })).toMatchObject({ env: { VLLM_USE_TRITON_AWQ: '1' } })
  })

  it('should map activation dtypes and refuse fp8_e5m2 GEMMs', () => {
    expect(t({ activation_dtype: 'fp16' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--dtype', 'float16'] })
    expect(t({ activation_dtype: 'fp8_e5m2' })).toMatchObject({ ok: false, dimension: 'activation_dtype', value: 'fp8_e5m2' })
  })

  it('should put fusion and CUDA graphs into one --compilation-config', () => {
    const config = (combo: Record<string, string>) => {
      const r = t(combo) as Translation
      return JSON.parse(r.argv[r.argv.indexOf('--compilation-config') + 1]!)
    }
    expect(config({ fusion_strategy: 'none', cuda_graph: 'off' })).toEqual({ mode: 0, cudagraph_mode: 'NONE' })
    expect(config({ fusion_strategy: 'conservative', cuda_graph: 'per-shape' })).toEqual({ mode: 3, cudagraph_mode: 'FULL' })
    expect(config({ fusion_strategy: 'aggressive', cuda_graph: 'dynamic' })).toEqual({
      mode: 3,
      cudagraph_mode: 'PIECEWISE',
      pass_config: { fuse_norm_quant: true, fuse_act_quant: true, fuse_attn_quant: true, eliminate_noops: true },
    })
    expect(config({ cuda_graph: 'dynamic' })).toEqual({ cudagraph_mode: 'PIECEWISE' })
    expect(t({ fusion_strategy: 'none', cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph', value: 'dynamic' })
  })

  it('should accept patch releases of a supported version and report the supported one', () => {
    expect(vllmEngine().translate({}, { version: '0.11.2' })).toMatchObject({ ok: true, version: '0.11' })
    expect(() => vllmEngine().translate({}, { version: '0.12.0' })).toThrow(/supported versions: 0\.11/)
  })

  it('should refuse every combination the engines README lists as inexpressible for vLLM', () => {
    const base = { activation_dtype: 'bf16' }
    expect(t({ ...base, kv_layout: 'contiguous' }).ok).toBe(false)
    expect(t({ activation_dtype: 'fp8_e5m2' }).ok).toBe(false)
    for (const v of CORE_DIMENSION_VALUES.kv_layout) if (v !== 'contiguous') expect(t({ kv_layout: v }).ok).toBe(true)
  })
})
