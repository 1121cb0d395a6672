import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, inventoryProblems, productOf, testEngine } from '@kerneltune/engine-conformance'
import { LLM_API_FILE, TRTLLM_SERVE_RELEASES, TRTLLM_SERVE_VERSIONS, trtllmServeEngine } from './index.ts'

// trtllm-serve controls three core dimensions, so the walk adds their product with the others left out.
const { attention_backend, activation_dtype, cuda_graph } = CORE_DIMENSION_VALUES
testEngine({
  engine: () => trtllmServeEngine(),
  combos: [...coreCombos(), ...productOf({ attention_backend, activation_dtype, cuda_graph })],
})

const t = (combo: Record<string, string>, version?: string) =>
  trtllmServeEngine().translate(combo, version === undefined ? { model: 'org/m' } : { model: 'org/m', version })
const options = (r: ReturnType<typeof t>) => JSON.parse((r as Translation).files[LLM_API_FILE]!)

describe('trtllmServeEngine', () => {
  it('should pass the options file with --config from 1.3 and --extra_llm_api_options before (VERSIONS.md §0, TRT-LLM row 1)', () => {
    const combo = { attention_backend: 'flashinfer' }
    expect((t(combo) as Translation).argv).toEqual(['trtllm-serve', 'org/m', '--config', LLM_API_FILE])
    expect((t(combo, '1.3.0rc11') as Translation).version).toBe('1.3')
    for (const v of ['1.2', '1.0']) expect((t(combo, v) as Translation).argv).toEqual(['trtllm-serve', 'org/m', '--extra_llm_api_options', LLM_API_FILE])
    expect((t({}) as Translation).argv).toEqual(['trtllm-serve', 'org/m'])
    expect((t({}) as Translation).files).toEqual({})
  })

  it('should map attention backends to attn_backend names and refuse the ones it lacks', () => {
    expect(options(t({ attention_backend: 'flash_attn_v2' }))).toEqual({ attn_backend: 'TRTLLM' })
    expect(options(t({ attention_backend: 'flashinfer' }))).toEqual({ attn_backend: 'FLASHINFER' })
    expect(options(t({ attention_backend: 'native' }))).toEqual({ attn_backend: 'VANILLA' })
    for (const a of ['flash_attn_v3', 'paged_attention', 'xformers']) expect(t({ attention_backend: a })).toMatchObject({ ok: false, dimension: 'attention_backend', value: a })
  })

  it('should map CUDA graphs to cuda_graph_config: null, captured sizes, and padding for dynamic', () => {
    expect(options(t({ cuda_graph: 'off' }))).toEqual({ cuda_graph_config: null })
    expect(options(t({ cuda_graph: 'per-shape' }))).toEqual({ cuda_graph_config: { batch_sizes: [1, 2, 4, 8, 16, 32], enable_padding: false } })
    const dynamic = t({ cuda_graph: 'dynamic' }) as Translation
    expect(options(dynamic).cuda_graph_config.enable_padding).toBe(true)
    expect(dynamic.notes.join(' ')).toMatch(/closest the PyTorch backend has/)
  })

  it('should leave KV layout, GEMMs and fusion to the engine and refuse e5m2', () => {
    for (const [dimension, neutral] of [['kv_layout', 'paged'], ['matmul_path', 'cublas'], ['fusion_strategy', 'none']] as const) {
      expect((t({ [dimension]: neutral }) as Translation).notes.join(' ')).toContain(`${dimension}=${neutral}: left to the engine`)
      for (const v of CORE_DIMENSION_VALUES[dimension].filter((x) => x !== neutral)) expect((t({ [dimension]: v }) as Refusal).reason).toMatch(/has no control/)
    }
    expect(t({ activation_dtype: 'fp8_e5m2' })).toMatchObject({ ok: false, dimension: 'activation_dtype' })
    expect((t({ activation_dtype: 'fp8_e4m3' }) as Translation).files).toEqual({})
  })

  it('should default to the newest release and reject unknown ones with the supported list', () => {
    expect(TRTLLM_SERVE_VERSIONS).toEqual(['1.3', '1.2', '1.0'])
    expect(trtllmServeEngine().defaultVersion).toBe('1.3')
    expect(() => t({}, '0.18.2')).toThrow(/supported versions: 1\.3, 1\.2, 1\.0/)
  })

  it("should catch the other release's flag and a key outside the LLM API inventory", () => {
    const r = t({ attention_backend: 'flashinfer' }) as Translation
    expect(inventoryProblems(r, TRTLLM_SERVE_RELEASES['1.3'].inventory)).toEqual([])
    expect(inventoryProblems(r, TRTLLM_SERVE_RELEASES['1.0'].inventory)).toEqual(['flag --config is not in the inventory'])
    const stray = { ...r, files: { [LLM_API_FILE]: '{"use_cuda_graph": true}' } }
    expect(inventoryProblems(stray, TRTLLM_SERVE_RELEASES['1.3'].inventory)).toEqual([`${LLM_API_FILE} key use_cuda_graph is not in the inventory`])
  })
})
