import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, productOf, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { onnxEngine, PROVIDER_FILE, SESSION_FILE } from './index.ts'

// The inventories are read-only reference data outside the repository; tests skip without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/onnxruntime.json`
const HAVE = existsSync(FILE)

/** Checks session and provider options against the inventory's option lists. */
function inventory(): EngineInventory {
  const flags = JSON.parse(readFileSync(FILE, 'utf8')).flags
  const levels = Object.keys(flags['SessionOptions.graph_optimization_level'].choices)
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const name of Object.keys(t.files)) if (name !== SESSION_FILE && name !== PROVIDER_FILE) problems.push(`unexpected file ${name}`)
    const session = JSON.parse(t.files[SESSION_FILE] ?? '{}') as Record<string, string>
    for (const [key, value] of Object.entries(session)) {
      if (key !== 'graph_optimization_level') problems.push(`session option ${key} is not in the inventory`)
      else if (!levels.includes(value)) problems.push(`graph_optimization_level ${value} is not in the inventory`)
    }
    const { providers, provider_options: options } = JSON.parse(t.files[PROVIDER_FILE]!)
    providers.forEach((provider: string, i: number) => {
      const known = flags[provider]
      if (!known) {
        problems.push(`provider ${provider} is not in the inventory`)
        return
      }
      for (const [key, value] of Object.entries(options[i] as Record<string, string>)) {
        if (!known[key]) problems.push(`${provider} option ${key} is not in the inventory`)
        // trt_bf16_enable is listed, but flagged as missing from the option file that was read.
        else if (known[key].provenance) problems.push(`${provider} option ${key} is version-dependent`)
        else if (known[key].type === 'bool' && !['0', '1'].includes(value)) problems.push(`${key}=${value} is not a boolean`)
      }
    })
    return problems
  }
  return { flags: {}, env: {}, check }
}

// ORT controls only three core dimensions, so the walk adds the product of those with the others
// left out (the engine default).
const { activation_dtype, fusion_strategy, cuda_graph } = CORE_DIMENSION_VALUES
for (const provider of ['cuda', 'tensorrt'] as const) {
  testEngine({
    engine: () => onnxEngine({ provider }),
    combos: [...coreCombos(), ...productOf({ activation_dtype, fusion_strategy, cuda_graph })],
    inventory: (version) => (HAVE && version === '1.2x' ? inventory() : undefined),
    skip: {
      ...(HAVE ? {} : { inventory: `no inventory at ${FILE}` }),
      ...(provider === 'tensorrt' ? { baseline: 'the TensorRT EP refuses bf16, the neutral activation dtype, until trt_bf16_enable is checked per release' } : {}),
    },
  })
}

const t = (combo: Record<string, string>, provider: 'cuda' | 'tensorrt' = 'cuda') => onnxEngine({ provider }).translate(combo)
const files = (r: ReturnType<typeof t>) => {
  const f = (r as Translation).files
  return { session: JSON.parse(f[SESSION_FILE] ?? '{}'), provider: JSON.parse(f[PROVIDER_FILE]!) }
}

describe('onnxEngine', () => {
  it('should leave attention, KV layout and GEMMs to the engine: the neutral value with a note, any other refused', () => {
    for (const [dimension, neutral] of [['attention_backend', 'flash_attn_v2'], ['kv_layout', 'paged'], ['matmul_path', 'cublas']] as const) {
      for (const provider of ['cuda', 'tensorrt'] as const) {
        const r = t({ [dimension]: neutral }, provider) as Translation
        expect(r.ok).toBe(true)
        expect(r.notes).toContain(`${dimension}=${neutral}: left to the engine (ONNX Runtime has no control for ${dimension}).`)
      }
      for (const v of CORE_DIMENSION_VALUES[dimension].filter((x) => x !== neutral)) {
        expect(t({ [dimension]: v })).toMatchObject({ ok: false, dimension, value: v })
        expect((t({ [dimension]: v }) as Refusal).reason).toMatch(/has no control/)
      }
    }
  })

  it('should enable fp16 on the TensorRT EP and refuse bf16 there and fp8 everywhere', () => {
    expect(files(t({ activation_dtype: 'fp16' }, 'tensorrt')).provider.provider_options).toEqual([{ trt_fp16_enable: '1' }])
    expect(t({ activation_dtype: 'bf16' }, 'tensorrt')).toMatchObject({ ok: false, dimension: 'activation_dtype' })
    expect(t({ activation_dtype: 'bf16' }).ok).toBe(true)
    for (const d of ['fp8_e4m3', 'fp8_e5m2']) expect(t({ activation_dtype: d }).ok).toBe(false)
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

  it('should accept 1.2x releases and reject others', () => {
    expect(onnxEngine().translate({}, { version: '1.22.1' })).toMatchObject({ version: '1.2x' })
    expect(() => onnxEngine().translate({}, { version: '1.19.0' })).toThrow(/supported versions: 1\.2x/)
    expect(() => onnxEngine().translate({}, { options: { provider: 'rocm' } })).toThrow(/supported providers/)
  })
})
