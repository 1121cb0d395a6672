import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, productOf, testEngine } from '@kerneltune/engine-conformance'
import { onnxEngine, ORT_RELEASES, ORT_VERSIONS, PROVIDER_FILE, SESSION_FILE } from './index.ts'

// The reference inventory is read-only data outside the repository; its cross-check skips without it.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/onnxruntime.json`
const HAVE = existsSync(FILE)

// The walk adds the product of the dimensions ORT controls, with the others left out.
const { attention_backend, activation_dtype, fusion_strategy, cuda_graph } = CORE_DIMENSION_VALUES
for (const provider of ['cuda', 'tensorrt'] as const) {
  testEngine({
    engine: () => onnxEngine({ provider }),
    combos: [...coreCombos(), ...productOf({ attention_backend, activation_dtype, fusion_strategy, cuda_graph })],
    // Checked per release in 'should express the bf16 baseline …' below: 1.19's TensorRT EP has no bf16.
    skip: provider === 'tensorrt' ? { baseline: 'the TensorRT EP of 1.19 has no trt_bf16_enable, so its bf16 baseline is refused (tested below)' } : {},
  })
}

const t = (combo: Record<string, string>, provider: 'cuda' | 'tensorrt' = 'cuda', version?: string) =>
  onnxEngine({ provider }).translate(combo, version === undefined ? {} : { version })
const files = (r: ReturnType<typeof t>) => {
  const f = (r as Translation).files
  return { session: JSON.parse(f[SESSION_FILE] ?? '{}'), provider: JSON.parse(f[PROVIDER_FILE]!) }
}
const BASELINE = { attention_backend: 'flash_attn_v2', kv_layout: 'paged', matmul_path: 'cublas', activation_dtype: 'bf16', fusion_strategy: 'none', cuda_graph: 'per-shape' }

describe('onnxEngine', () => {
  it('should leave the KV layout and GEMMs (and attention on the TensorRT EP) to the engine: the neutral value with a note, any other refused', () => {
    for (const [dimension, neutral, providers] of [['kv_layout', 'paged', ['cuda', 'tensorrt']], ['matmul_path', 'cublas', ['cuda', 'tensorrt']], ['attention_backend', 'flash_attn_v2', ['tensorrt']]] as const) {
      for (const provider of providers) {
        const r = t({ [dimension]: neutral }, provider) as Translation
        expect(r.notes).toContain(`${dimension}=${neutral}: left to the engine (ONNX Runtime has no control for ${dimension}).`)
        for (const v of CORE_DIMENSION_VALUES[dimension].filter((x) => x !== neutral)) {
          expect((t({ [dimension]: v }, provider) as Refusal).reason).toMatch(/has no control/)
        }
      }
    }
  })

  it('should select CUDA EP attention kernels with the ORT_DISABLE_*_ATTENTION variables', () => {
    expect(t({ attention_backend: 'flash_attn_v2' })).toMatchObject({ env: { ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION: '1', ORT_DISABLE_TRT_FLASH_ATTENTION: '1' } })
    expect((t({ attention_backend: 'flash_attn_v2' }) as Translation).env).not.toHaveProperty('ORT_DISABLE_FLASH_ATTENTION')
    expect((t({ attention_backend: 'native' }) as Translation).env).toEqual({
      ORT_DISABLE_FLASH_ATTENTION: '1', ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION: '1', ORT_DISABLE_TRT_FLASH_ATTENTION: '1', ORT_DISABLE_FUSED_ATTENTION: '1',
    })
    for (const a of ['flash_attn_v3', 'flashinfer', 'paged_attention', 'xformers']) expect(t({ attention_backend: a })).toMatchObject({ ok: false, dimension: 'attention_backend', value: a })
    expect(onnxEngine().controls).toContain('attention_backend')
    expect(onnxEngine({ provider: 'tensorrt' }).controls).not.toContain('attention_backend')
  })

  it('should enable bf16 on the TensorRT EP from 1.29, refuse it on 1.19 naming 1.29, and refuse fp8 everywhere (VERSIONS.md §0, ORT row)', () => {
    expect(files(t({ activation_dtype: 'fp16' }, 'tensorrt')).provider.provider_options).toEqual([{ trt_fp16_enable: '1' }])
    expect(files(t({ activation_dtype: 'bf16' }, 'tensorrt', '1.29')).provider.provider_options).toEqual([{ trt_bf16_enable: '1' }])
    const old = t({ activation_dtype: 'bf16' }, 'tensorrt', '1.19') as Refusal
    expect(old).toMatchObject({ ok: false, version: '1.19', dimension: 'activation_dtype', value: 'bf16' })
    expect(old.reason).toMatch(/1\.19\.2 has no trt_bf16_enable; it works from 1\.29/)
    expect(t({ activation_dtype: 'bf16' }, 'cuda', '1.19').ok).toBe(true)
    for (const d of ['fp8_e4m3', 'fp8_e5m2']) expect(t({ activation_dtype: d }).ok).toBe(false)
  })

  it('should express the bf16 baseline on both providers in 1.29 and on the CUDA EP in 1.19', () => {
    for (const provider of ['cuda', 'tensorrt'] as const) expect(t(BASELINE, provider, '1.29').ok).toBe(true)
    expect(t(BASELINE, 'cuda', '1.19').ok).toBe(true)
    expect(t(BASELINE, 'tensorrt', '1.19')).toMatchObject({ ok: false, dimension: 'activation_dtype' })
  })

  it('should map fusion strategies to graph optimization levels', () => {
    expect(files(t({ fusion_strategy: 'none' })).session).toEqual({ graph_optimization_level: 'ORT_DISABLE_ALL' })
    expect(files(t({ fusion_strategy: 'conservative' })).session).toEqual({ graph_optimization_level: 'ORT_ENABLE_BASIC' })
    expect(files(t({ fusion_strategy: 'aggressive' })).session).toEqual({ graph_optimization_level: 'ORT_ENABLE_ALL' })
  })

  it('should map CUDA graphs to the provider option and refuse dynamic graphs', () => {
    expect(files(t({ cuda_graph: 'per-shape' })).provider).toEqual({ providers: ['CUDAExecutionProvider'], provider_options: [{ enable_cuda_graph: '1' }] })
    expect(files(t({ cuda_graph: 'off' }, 'tensorrt')).provider.provider_options).toEqual([{ trt_cuda_graph_enable: '0' }])
    expect(t({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph' })
  })

  it('should default to the newest release, accept patch releases, and reject others with the supported list', () => {
    expect(onnxEngine().defaultVersion).toBe('1.29')
    expect(ORT_VERSIONS).toEqual(['1.29', '1.19'])
    expect(onnxEngine().translate({}, { version: '1.19.2' })).toMatchObject({ version: '1.19' })
    expect(() => onnxEngine().translate({}, { version: '1.22.0' })).toThrow(/supported versions: 1\.29, 1\.19/)
    expect(() => onnxEngine().translate({}, { options: { provider: 'rocm' } })).toThrow(/supported providers/)
  })

  it('should keep an inventory per release whose bf16 option follows the binaries that were read', () => {
    expect(onnxEngine().inventory('1.29')?.evidence?.join(' ')).toMatch(/1\.29\.0/)
    expect(ORT_RELEASES['1.29'].providerOptions.tensorrt).toContain('trt_bf16_enable')
    expect(ORT_RELEASES['1.19'].providerOptions.tensorrt).not.toContain('trt_bf16_enable')
    expect(onnxEngine().inventory('9.9')).toBeUndefined()
  })
})

describe.skipIf(requireOrSkip(HAVE, `reference: ${FILE} is absent (ONNX Runtime inventories)`))(`onnxEngine inventories against ${FILE}`, () => {
  it('should list only provider options the reference inventory knows, apart from sdpa_kernel', () => {
    const flags = HAVE ? JSON.parse(readFileSync(FILE, 'utf8')).flags : {}
    for (const version of ORT_VERSIONS) {
      const release = ORT_RELEASES[version]
      expect(release.providerOptions.cuda.filter((k) => !(k in flags.CUDAExecutionProvider))).toEqual(['sdpa_kernel'])
      expect(release.providerOptions.tensorrt.filter((k) => !(k in flags.TensorrtExecutionProvider))).toEqual([])
      for (const level of release.optimizationLevels) expect(flags['SessionOptions.graph_optimization_level'].choices).toHaveProperty(level)
    }
  })
})
