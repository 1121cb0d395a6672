import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { createRegistry, type HardwareSpec, type Translation } from '@kerneltune/core'
import { argvProblems, coreCombos, inventoryFromJson, inventoryProblems, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { trtllmEngine } from '@kerneltune/engines-trtllm'
import { vllmEngine } from '@kerneltune/engines-vllm'
import { TRITON_RELEASES, TRITON_VERSIONS, tritonEngine as bareTritonEngine, type TritonEngineOptions } from './index.ts'

// Triton finds the engines of its backends in the registry it is given, as the composition root
// wires it; here the real vLLM and TensorRT-LLM engines provide them.
const peers = createRegistry([vllmEngine(), trtllmEngine()])
const tritonEngine = (options: TritonEngineOptions = {}) => bareTritonEngine({ engines: peers, ...options })

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
  // triton.json lists the tuning fields of model_config.proto; ModelConfig's `input` and `output`
  // (repeated ModelInput / ModelOutput, `output = 6` in the stored copy at 08365eae) carry the tensors.
  const fields = new Set(['backend', 'parameters', 'input', 'output', ...Object.keys(triton.flags).map((k) => k.split('.')[0]!)])
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

// Both backends are checked against the plugin's own per-release inventory (the vllm backend's is
// the default vLLM release's, from engines-vllm); the reference inventories are walked below as a cross-check.
testEngine({ engine: () => tritonEngine({ backend: 'tensorrtllm' }) })
testEngine({ engine: () => tritonEngine({ backend: 'vllm' }) })

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
    const combo = { attention_backend: 'flashinfer', kv_layout: 'chunked', cuda_graph: 'off' }
    const old = tritonEngine({ backend: 'vllm' }).translate(combo, { model: 'm', options: { vllmVersion: '0.11.2' } })
    expect(old).toMatchObject({ ok: true, env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } })
    expect(JSON.parse(file(old, 'model.json'))).toEqual({ model: 'm', enable_chunked_prefill: true, compilation_config: { cudagraph_mode: 'NONE' } })
    // The default vLLM release (the engine's, 0.32.0) takes the backend as an engine argument.
    const r = vl(combo)
    expect(r).toMatchObject({ ok: true, env: {} })
    expect(JSON.parse(file(r, 'model.json'))).toEqual({ model: 'm', attention_backend: 'FLASHINFER', enable_chunked_prefill: true, compilation_config: { cudagraph_mode: 'NONE' } })
    expect(file(r, 'config.pbtxt')).toContain('backend: "vllm"')
    expect(vl({ kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout', reason: expect.stringContaining('vllm backend') })
  })

  it('should take the backend from context options and reject an unknown one', () => {
    expect(tritonEngine().translate({}, { options: { backend: 'vllm' } })).toMatchObject({ notes: expect.arrayContaining(['backend: vllm']) })
    expect(() => tritonEngine().translate({}, { options: { backend: 'onnxruntime' } })).toThrow(/supported backends: tensorrtllm, vllm/)
  })
})

describe('tritonEngine releases (TensorRT-LLM backend)', () => {
  const config = (r: ReturnType<typeof trt>) => file(r, 'tensorrt_llm/config.pbtxt')

  it('should write instance_group KIND_CPU as the upstream template does, never KIND_GPU', () => {
    for (const version of TRITON_VERSIONS) {
      const c = config(tritonEngine().translate({}, { version }))
      expect(c).toContain('kind: KIND_CPU')
      expect(c).not.toContain('KIND_GPU')
    }
  })

  it('should pick GPUs with the gpu_device_ids parameter and reject a malformed list', () => {
    const r = tritonEngine().translate({}, { options: { gpuDeviceIds: '0,1;2,3' } })
    expect(config(r)).toMatch(/key: "gpu_device_ids"\n {2}value: \{ string_value: "0,1;2,3" \}/)
    expect(config(tritonEngine().translate({}))).not.toContain('gpu_device_ids')
    expect(() => tritonEngine().translate({}, { options: { gpuDeviceIds: 'gpu0' } })).toThrow(/separate ids with ","/)
  })

  it('should point to the template where each backend release keeps it, moved after v0.19.0 (VERSIONS.md §0, Triton row)', () => {
    const notes = (version: string) => (tritonEngine().translate({}, { version }) as Translation).notes.join(' ')
    expect(notes('0.19')).toContain('triton-inference-server/tensorrtllm_backend all_models/inflight_batcher_llm/')
    expect(notes('1.0')).toContain('NVIDIA/TensorRT-LLM triton_backend/all_models/inflight_batcher_llm/')
    expect(notes('1.0.0')).not.toContain('tensorrtllm_backend all_models')
  })

  it('should default to the newest backend release and reject others with the supported list', () => {
    expect(TRITON_VERSIONS).toEqual(['1.0', '0.19'])
    expect(tritonEngine().defaultVersion).toBe('1.0')
    expect(() => tritonEngine().translate({}, { version: '2.73' })).toThrow(/supported versions: 1\.0, 0\.19/)
  })

  it('should refuse what trtllm-build refuses on the device (the CUTLASS fp8 GEMM on SM 100)', () => {
    const hardware = { name: 'B200', vendor: 'nvidia', kind: 'gpu', computeCapability: '10.0', sources: ['test'] } as HardwareSpec
    expect(tritonEngine().translate({ matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' }, { hardware })).toMatchObject({ ok: false, dimension: 'matmul_path', reason: expect.stringContaining('SM 100') })
  })

  // Issue 23 item 5: the tensorrtllm backend reads and writes these tensors by name and does not
  // fill a config in, so a config without them serves nothing.
  it("should declare the template's input and output tensors, with max_batch_size equal to the engine's (tensorrt_llm/config.pbtxt)", () => {
    for (const version of TRITON_VERSIONS) {
      const r = tritonEngine().translate({ activation_dtype: 'bf16' }, { model: 'ckpt', version }) as Translation
      const c = config(r)
      for (const t of TRITON_RELEASES[version].inputs) expect(c).toContain(`name: "${t.name}"`)
      for (const t of TRITON_RELEASES[version].outputs) expect(c).toContain(`name: "${t.name}"`)
      expect(c).toMatch(/input \[\n {2}\{\n {4}name: "input_ids"\n {4}data_type: TYPE_INT32\n {4}dims: \[ -1 \]\n {4}optional: true\n {4}allow_ragged_batch: true\n {2}\}/)
      expect(c).toMatch(/name: "input_lengths"\n {4}data_type: TYPE_INT32\n {4}dims: \[ 1 \]\n {4}reshape: \{ shape: \[ \] \}\n {2}\}/)
      expect(c).toMatch(/name: "generation_logits"\n {4}data_type: TYPE_FP32\n {4}dims: \[ -1, -1, -1 \]/)
      // 1.0 takes the table's type from the checkpoint; 0.19's template fixes it at TYPE_FP16 (v0.19.0 L307-308).
      expect(c).toMatch(new RegExp(`name: "prompt_embedding_table"\\n {4}data_type: ${version === '1.0' ? 'TYPE_BF16' : 'TYPE_FP16'}\\n`))
      expect(c).toMatch(/^max_batch_size: 64$/m)
      expect(file(r, 'build-engine.sh')).toContain('--max_batch_size 64 --logits_dtype float32')
      expect(inventoryProblems(r, TRITON_RELEASES[version].inventory)).toEqual([])
    }
    expect(TRITON_RELEASES['0.19'].inventory.evidence!.join(' ')).toMatch(/config\.pbtxt at v0\.19\.0, input block L41-482 \(60 tensors\), output block L483-579 \(19\)/)
    expect(TRITON_RELEASES['0.19'].inventory.evidence!.join(' ')).not.toMatch(/not stored|0c8de69a/)
  })

  it('should leave the model-dtype tensors out when the combination does not name the dtype, and take maxBatchSize for both the engine and the config', () => {
    const r = tritonEngine().translate({}, { options: { maxBatchSize: 8 } }) as Translation
    expect(config(r)).not.toContain('prompt_embedding_table')
    expect(config(r)).toContain('name: "input_ids"')
    expect(config(r)).toMatch(/^max_batch_size: 8$/m)
    expect(file(r, 'build-engine.sh')).toContain('--max_batch_size 8')
    expect(r.notes.join(' ')).toContain('Left out (encoder-decoder and prompt-table models only): encoder_input_features, prompt_embedding_table, whose data type the 1.0 template')
    // 0.19 fixes the table at TYPE_FP16, so only the encoder features depend on the checkpoint.
    const old = tritonEngine().translate({}, { version: '0.19' }) as Translation
    expect(config(old)).toMatch(/name: "prompt_embedding_table"\n {4}data_type: TYPE_FP16\n/)
    expect(config(old)).not.toContain('encoder_input_features')
    expect(old.notes.join(' ')).toContain('Left out (encoder-decoder and prompt-table models only): encoder_input_features, whose data type the 0.19 template')
    expect(() => tritonEngine().translate({}, { options: { maxBatchSize: 0 } })).toThrow(/not a positive integer/)
  })

  it('should catch a config without tensors, a tensor of the wrong type, and a max_batch_size the engine was not built with', () => {
    const r = trt({}) as Translation
    const name = Object.keys(r.files).find((n) => n.endsWith('config.pbtxt'))!
    const inventory = TRITON_RELEASES['1.0'].inventory
    const bare = r.files[name]!.replace(/input \[[\s\S]*?\n\]\noutput \[[\s\S]*?\n\]\n/, '')
    expect(inventoryProblems({ ...r, files: { ...r.files, [name]: bare } }, inventory)).toEqual(expect.arrayContaining([`${name}: no input tensors declared (the backend does not fill them in)`, `${name}: no output tensors declared (the backend does not fill them in)`]))
    const wrong = r.files[name]!.replace('name: "input_lengths"\n    data_type: TYPE_INT32', 'name: "input_lengths"\n    data_type: TYPE_INT64').replace('max_batch_size: 64', 'max_batch_size: 128')
    expect(inventoryProblems({ ...r, files: { ...r.files, [name]: wrong } }, inventory)).toEqual([
      `${name}: input input_lengths is TYPE_INT64, the template has TYPE_INT32`,
      `${name}: max_batch_size 128 differs from build-engine.sh --max_batch_size 64`,
    ])
  })

  it('should catch a parameter or instance kind outside the inventory', () => {
    const r = trt({}) as Translation
    const inventory = TRITON_RELEASES['1.0'].inventory
    expect(inventoryProblems(r, inventory)).toEqual([])
    const name = Object.keys(r.files).find((n) => n.endsWith('config.pbtxt'))!
    const bad = { ...r, files: { ...r.files, [name]: r.files[name]!.replace('KIND_CPU', 'KIND_GPU').replace('"inflight_fused_batching"', '"static"') } }
    expect(inventoryProblems(bad, inventory)).toEqual([`${name}: instance kind KIND_GPU`, `${name}: parameter gpt_model_type=static is not one of V1, v1, inflight_batching, inflight_fused_batching`])
  })
})

describe.skipIf(requireOrSkip(HAVE, `reference: the inventories in ${DIR} are absent (Triton inventory)`))(`tritonEngine inventory against ${DIR}`, () => {
  it('should stay inside the reference inventories for both backends over the full product', () => {
    const reference = inventory()
    const problems: string[] = []
    for (const backend of ['tensorrtllm', 'vllm'] as const) {
      for (const combo of coreCombos()) {
        // vllm.json is a 0.11.x-era snapshot, so model.json is written for vLLM 0.11.2 here.
        const r = tritonEngine({ backend }).translate(combo, { model: 'm', options: { vllmVersion: '0.11.2' } })
        if (r.ok) problems.push(...inventoryProblems(r, reference).map((p) => `${backend} ${JSON.stringify(combo)}: ${p}`))
      }
    }
    expect(problems.slice(0, 5)).toEqual([])
  })

  it('should write only parameters the tensorrtllm backend template has', () => {
    const keys: string[] = HAVE ? read('triton.json').tensorrtllm_backend_parameters.all_keys_in_template : []
    for (const version of TRITON_VERSIONS) for (const key of Object.keys(TRITON_RELEASES[version].parameters)) expect(keys).toContain(key)
  })
})

describe('tritonEngine vllm backend releases', () => {
  it("should write model.json for the vLLM release the context names, by default the vLLM engine's own default (issue 23 item 6: one default)", () => {
    const notes = (options: Record<string, unknown>) => (tritonEngine({ backend: 'vllm' }).translate({}, { options }) as Translation).notes.join(' ')
    expect(notes({})).toContain(`vLLM ${vllmEngine().defaultVersion} engine arguments`)
    expect(notes({ vllmVersion: '0.11.2' })).toContain('vLLM 0.11.2 engine arguments')
    expect(() => tritonEngine({ backend: 'vllm' }).translate({}, { options: { vllmVersion: '0.9.0' } })).toThrow(/supported versions: 0\.32\.0/)
  })

  it("should catch a model.json key outside the vLLM release's inventory", () => {
    const r = vl({ kv_layout: 'chunked' }) as Translation
    const inventory = tritonEngine({ backend: 'vllm' }).inventory('1.0')!
    expect(inventoryProblems(r, inventory)).toEqual([])
    const name = Object.keys(r.files).find((n) => n.endsWith('model.json'))!
    const bad = { ...r, files: { ...r.files, [name]: JSON.stringify({ model: 'm', enable_prefix_caching_v2: true }) } }
    expect(inventoryProblems(bad, inventory)).toEqual([`${name}: enable_prefix_caching_v2 is not a vLLM ${vllmEngine().defaultVersion} engine argument this inventory holds`])
  })
})
