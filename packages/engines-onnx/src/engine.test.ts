import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, inventoryProblems, productOf, testEngine } from '@kerneltune/engine-conformance'
import { onnxEngine, ORT_RELEASES, ORT_VERSIONS, PROVIDER_FILE, SDPA_KERNEL, SESSION_FILE } from './index.ts'

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

  it('should select CUDA EP attention kernels with the sdpa_kernel bit mask, which makes the ORT_DISABLE_* variables ignored (attention_kernel_options.cc: L17-35 @ 6ffaaebb, L18-48 @ 7942fa7a)', () => {
    for (const version of ORT_VERSIONS) {
      const flash = t({ attention_backend: 'flash_attn_v2' }, 'cuda', version) as Translation
      // Only FlashAttention among the fused kernels: TensorRT fused attention (ORT_DISABLE_FUSED_ATTENTION)
      // included, which the two variables set before left on while the note said it was off.
      expect(files(flash).provider.provider_options).toEqual([{ sdpa_kernel: String(SDPA_KERNEL.flash) }])
      expect(flash.env).toEqual({})
      expect(flash.notes.join(' ')).toMatch(/TensorRT fused, .*TensorRT flash, TensorRT cross/)
      expect(flash.notes.join(' ')).toMatch(/attention variables are ignored/)
      const native = t({ attention_backend: 'native' }, 'cuda', version) as Translation
      expect(files(native).provider.provider_options).toEqual([{ sdpa_kernel: String(SDPA_KERNEL.math) }])
      expect(native.env).toEqual({})
    }
    for (const a of ['flash_attn_v3', 'flashinfer', 'paged_attention', 'xformers']) expect(t({ attention_backend: a })).toMatchObject({ ok: false, dimension: 'attention_backend', value: a })
    expect(onnxEngine().controls).toContain('attention_backend')
    expect(onnxEngine({ provider: 'tensorrt' }).controls).not.toContain('attention_backend')
  })

  it('should turn every fused kernel off for native, TensorRT cross attention (1.19, 1.29) and decoder attention (1.29) included (attention_common.h)', () => {
    const note = (version: string) => (t({ attention_backend: 'native' }, 'cuda', version) as Translation).notes.join(' ')
    expect(note('1.19')).toMatch(/TensorRT cross, TensorRT causal\)/)
    expect(note('1.29')).toMatch(/TensorRT cross, decoder masked \(FasterTransformer\)\)/)
    // The variables each release reads, from its library: the cross-attention switch in both, the decoder one in 1.29 only.
    expect(ORT_RELEASES['1.19'].attentionEnv).toContain('ORT_DISABLE_FUSED_CROSS_ATTENTION')
    expect(ORT_RELEASES['1.29'].attentionEnv).toEqual(expect.arrayContaining(['ORT_DISABLE_FUSED_CROSS_ATTENTION', 'ORT_DISABLE_DECODER_ATTENTION']))
    expect(ORT_RELEASES['1.19'].attentionEnv).not.toContain('ORT_DISABLE_DECODER_ATTENTION')
    expect(ORT_RELEASES['1.19'].evidence.join(' ')).toMatch(/attention_common\.h.*L172 ORT_DISABLE_FUSED_CROSS_ATTENTION/)
    // Issue 34 item 3: 1.29's source evidence is a commit whose header and options code have the
    // decoder bit (7942fa7a), not d6131154, whose code has none.
    const evidence = ORT_RELEASES['1.29'].evidence.join(' ')
    expect(evidence).toMatch(/attention_common\.h at microsoft\/onnxruntime commit 7942fa7a .*L80 `DECODER_ATTENTION = 512/)
    expect(evidence).toMatch(/attention_kernel_options\.cc at the same commit 7942fa7a: .*L32 `use_decoder_attention_/)
    expect(evidence).not.toContain('d6131154')
  })

  it("should catch an sdpa_kernel mask outside the release's kernels", () => {
    const r = t({ attention_backend: 'native' }) as Translation
    const withMask = (mask: string) => ({ ...r, files: { ...r.files, [PROVIDER_FILE]: JSON.stringify({ providers: ['CUDAExecutionProvider'], provider_options: [{ sdpa_kernel: mask }] }) } })
    expect(inventoryProblems(withMask('16'), onnxEngine().inventory('1.29')!)).toEqual([])
    expect(inventoryProblems(withMask(String(SDPA_KERNEL.trtCausal)), onnxEngine().inventory('1.29')!)[0]).toMatch(/sdpa_kernel=128 is not a mask of the 1\.29\.0 kernels/)
    expect(inventoryProblems(withMask(String(SDPA_KERNEL.decoder)), onnxEngine().inventory('1.19')!)[0]).toMatch(/sdpa_kernel=512 is not a mask of the 1\.19\.2 kernels/)
    expect(inventoryProblems(withMask('0'), onnxEngine().inventory('1.19')!)).toHaveLength(1)
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
  it('should name only attention variables the reference lists, and use its sdpa_kernel bit values', () => {
    const ref = HAVE ? JSON.parse(readFileSync(FILE, 'utf8')) as { env: Record<string, unknown>; mapping_notes: { attention_env: string } } : { env: {}, mapping_notes: { attention_env: '' } }
    for (const version of ORT_VERSIONS) expect(ORT_RELEASES[version].attentionEnv.filter((n) => !(n in ref.env))).toEqual([])
    // "FLASH_ATTENTION 1, EFFICIENT_ATTENTION 2, ..." in the reference's note on attention_env.
    const bits = Object.fromEntries([...ref.mapping_notes.attention_env.matchAll(/([A-Z_]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]))
    const names = { flash: 'FLASH_ATTENTION', efficient: 'EFFICIENT_ATTENTION', trtFused: 'TRT_FUSED_ATTENTION', cudnnFlash: 'CUDNN_FLASH_ATTENTION', math: 'MATH', trtFlash: 'TRT_FLASH_ATTENTION', trtCross: 'TRT_CROSS_ATTENTION', trtCausal: 'TRT_CAUSAL_ATTENTION' } as const
    for (const [key, name] of Object.entries(names)) expect([name, SDPA_KERNEL[key as keyof typeof names]]).toEqual([name, bits[name]])
  })

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
