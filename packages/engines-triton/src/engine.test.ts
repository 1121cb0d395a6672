import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Translation } from '@kerneltune/core'
import { argvProblems, inventoryFromJson, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { tritonEngine } from './index.ts'

// The inventories are read-only reference data outside the repository; tests skip without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const HAVE = ['triton.json', 'tensorrt_llm.json', 'vllm.json'].every((f) => existsSync(`${DIR}/${f}`))
const read = (f: string) => JSON.parse(readFileSync(`${DIR}/${f}`, 'utf8'))

/**
 * Checks the model repository: config.pbtxt top-level fields against model_config.proto (the
 * inventory's `flags` and the structural `backend`/`parameters`), parameter keys against the
 * tensorrtllm backend's template, build-engine.sh against the TensorRT-LLM inventory, and
 * model.json keys (vLLM EngineArgs) against vLLM's flags.
 */
function inventory(): EngineInventory {
  const triton = read('triton.json')
  const trtllm = inventoryFromJson(read('tensorrt_llm.json'))
  const vllmJson = read('vllm.json')
  const vllm = inventoryFromJson(vllmJson)
  const fields = new Set(['backend', 'parameters', ...Object.keys(triton.flags).map((k) => k.split('.')[0]!)])
  const paramKeys = new Set<string>(triton.tensorrtllm_backend_parameters.all_keys_in_template)
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const [name, text] of Object.entries(t.files)) {
      if (name.endsWith('config.pbtxt')) {
        for (const m of text.matchAll(/^(\w+)\s*[:[{]/gm)) if (!fields.has(m[1]!)) problems.push(`${name}: field ${m[1]} is not in model_config.proto's inventory`)
        for (const m of text.matchAll(/key: "([^"]+)"/g)) if (!paramKeys.has(m[1]!)) problems.push(`${name}: parameter ${m[1]} is not a tensorrtllm backend parameter`)
        const backend = /^backend: "([^"]+)"/m.exec(text)?.[1]
        if (backend !== 'tensorrtllm' && backend !== 'vllm') problems.push(`${name}: backend ${backend}`)
      } else if (name === 'build-engine.sh') {
        const words = text.split('\n')[1]!.split(' ').map((w) => w.replace(/^'|'$/g, ''))
        problems.push(...argvProblems(words, trtllm).map((p) => `build-engine.sh: ${p}`))
      } else if (name.endsWith('model.json')) {
        const args = JSON.parse(text) as Record<string, unknown>
        for (const [key, value] of Object.entries(args)) {
          if (key === 'model') continue
          const flag = vllm.flags[`--${key.replace(/_/g, '-')}`]
          if (!flag) problems.push(`${name}: ${key} is not a vLLM engine argument`)
          else if (flag.choices && !flag.choices.map(String).includes(String(value))) problems.push(`${name}: ${key}=${String(value)} is not accepted`)
        }
        const cc = args.compilation_config as Record<string, unknown> | undefined
        for (const key of Object.keys(cc ?? {})) if (!(key in vllmJson.compilation_config_fields)) problems.push(`${name}: compilation_config.${key}`)
      } else problems.push(`unexpected file ${name}`)
    }
    return problems
  }
  // The inventory records config.pbtxt and backend parameters, not the tritonserver command line;
  // --model-repository is the one server flag emitted (tritonserver's required flag). The server
  // environment carries vLLM's variables (triton.json vllm_backend.env), checked against vLLM's.
  return { flags: { '--model-repository': { type: 'str' } }, env: vllm.env, check }
}

for (const backend of ['tensorrtllm', 'vllm'] as const) {
  testEngine({
    engine: () => tritonEngine({ backend }),
    inventory: (version) => (HAVE && version === '2.73' ? inventory() : undefined),
    skip: HAVE ? {} : { inventory: `no inventories in ${DIR}` },
  })
}

const trt = (combo: Record<string, string>) => tritonEngine().translate(combo, { model: 'ckpt' })
const vl = (combo: Record<string, string>) => tritonEngine({ backend: 'vllm' }).translate(combo, { model: 'm' })
const file = (r: ReturnType<typeof trt>, suffix: string) => Object.entries((r as Translation).files).find(([n]) => n.endsWith(suffix))?.[1] ?? ''

describe('tritonEngine', () => {
  it('should write the tensorrtllm model config with chunked context and CUDA graph parameters', () => {
    const r = trt({ kv_layout: 'chunked', cuda_graph: 'per-shape' })
    expect(r).toMatchObject({ ok: true, argv: ['tritonserver', '--model-repository=model_repository'] })
    const config = file(r, 'config.pbtxt')
    expect(config).toContain('backend: "tensorrtllm"')
    expect(config).toMatch(/key: "enable_chunked_context"\n {2}value: \{ string_value: "true" \}/)
    expect(config).toMatch(/key: "cuda_graph_mode"\n {2}value: \{ string_value: "true" \}/)
    expect(file(r, 'build-engine.sh')).toContain('--use_paged_context_fmha enable')
  })

  it('should put build-time dimensions into the trtllm-build script and refuse what TensorRT-LLM refuses', () => {
    expect(file(trt({ attention_backend: 'native', fusion_strategy: 'none' }), 'build-engine.sh')).toContain('--context_fmha disable --use_fused_mlp disable')
    expect(trt({ matmul_path: 'machete' })).toMatchObject({ ok: false, dimension: 'matmul_path', reason: expect.stringContaining('tensorrtllm backend') })
    expect(trt({ kv_layout: 'contiguous' })).toMatchObject({ ok: true })
  })

  it('should refuse dynamic CUDA graphs with the tensorrtllm backend', () => {
    expect(trt({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph', value: 'dynamic' })
  })

  it('should write model.json and the server environment with the vllm backend', () => {
    const r = vl({ attention_backend: 'flashinfer', kv_layout: 'chunked', cuda_graph: 'off' })
    expect(r).toMatchObject({ ok: true, env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } })
    expect(JSON.parse(file(r, 'model.json'))).toEqual({ model: 'm', enable_chunked_prefill: true, compilation_config: { cudagraph_mode: 'NONE' } })
    expect(file(r, 'config.pbtxt')).toContain('backend: "vllm"')
    expect(vl({ kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout', reason: expect.stringContaining('vllm backend') })
  })

  it('should take the backend from context options and reject an unknown one', () => {
    expect(tritonEngine().translate({}, { options: { backend: 'vllm' } })).toMatchObject({ notes: expect.arrayContaining(['backend: vllm']) })
    expect(() => tritonEngine().translate({}, { options: { backend: 'onnxruntime' } })).toThrow(/supported backends: tensorrtllm, vllm/)
  })
})
