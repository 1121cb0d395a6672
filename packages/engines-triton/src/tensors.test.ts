import { describe, expect, it } from 'vitest'
import { createRegistry, type Translation } from '@kerneltune/core'
import { inventoryProblems } from '@kerneltune/engine-conformance'
import { trtllmEngine } from '@kerneltune/engines-trtllm'
import { TEMPLATE_INPUTS, TEMPLATE_OUTPUTS, TEMPLATE_TENSORS, TRITON_RELEASES, TRITON_VERSIONS, tritonEngine, type TemplateTensor, type TritonVersion } from './index.ts'

// Issue 34 item 1: each backend release declares its own template's tensors and is checked
// against them, so a config written from the other release's list does not pass.
const engine = tritonEngine({ engines: createRegistry([trtllmEngine()]) })
const translate = (version: TritonVersion, activation_dtype = 'bf16') => engine.translate({ activation_dtype }, { model: 'ckpt', version }) as Translation
const configName = (t: Translation) => Object.keys(t.files).find((n) => n.endsWith('tensorrt_llm/config.pbtxt'))!
const names = (list: readonly TemplateTensor[]) => list.map((t) => t.name)
const only = (a: readonly TemplateTensor[], b: readonly TemplateTensor[]) => names(a).filter((n) => !names(b).includes(n))

describe('template tensors per TensorRT-LLM backend release', () => {
  it('should hold 60 inputs and 19 outputs for 0.19 (v0.19.0 config.pbtxt L41-482, L483-579) and 62 and 21 for 1.0', () => {
    expect([TEMPLATE_TENSORS['0.19'].inputs.length, TEMPLATE_TENSORS['0.19'].outputs.length]).toEqual([60, 19])
    expect([TEMPLATE_TENSORS['1.0'].inputs.length, TEMPLATE_TENSORS['1.0'].outputs.length]).toEqual([62, 21])
    for (const version of TRITON_VERSIONS) {
      expect(TRITON_RELEASES[version].inputs).toBe(TEMPLATE_TENSORS[version].inputs)
      expect(TRITON_RELEASES[version].outputs).toBe(TEMPLATE_TENSORS[version].outputs)
      for (const list of [TRITON_RELEASES[version].inputs, TRITON_RELEASES[version].outputs]) expect(new Set(names(list)).size).toBe(list.length)
    }
    expect(TEMPLATE_INPUTS).toBe(TEMPLATE_TENSORS['1.0'].inputs)
    expect(TEMPLATE_OUTPUTS).toBe(TEMPLATE_TENSORS['1.0'].outputs)
  })

  it('should differ between 0.19 and 1.0 exactly where the templates do', () => {
    const [old, now] = [TEMPLATE_TENSORS['0.19'], TEMPLATE_TENSORS['1.0']]
    // v0.19.0 L223 min_length, L251 random_seed: the names its backend reads (utils.h L92, L96).
    expect(only(old.inputs, now.inputs)).toEqual(['min_length', 'random_seed'])
    expect(only(now.inputs, old.inputs)).toEqual(['min_tokens', 'seed', 'return_num_input_tokens', 'return_num_output_tokens'])
    expect(only(old.outputs, now.outputs)).toEqual([])
    expect(only(now.outputs, old.outputs)).toEqual(['num_input_tokens', 'num_output_tokens'])
    const byName = new Map(now.inputs.map((t) => [t.name, t]))
    expect(byName.get('min_tokens')).toEqual({ ...old.inputs.find((t) => t.name === 'min_length'), name: 'min_tokens' })
    expect(byName.get('seed')).toEqual({ ...old.inputs.find((t) => t.name === 'random_seed'), name: 'seed' })
    // Every tensor both have is declared alike, but for the prompt table's type (v0.19.0 L308 TYPE_FP16).
    const changed = old.inputs.filter((t) => byName.has(t.name) && JSON.stringify(byName.get(t.name)) !== JSON.stringify(t))
    expect(changed).toEqual([{ name: 'prompt_embedding_table', dataType: 'TYPE_FP16', dims: [-1, -1], optional: true, allowRaggedBatch: true }])
    expect(byName.get('prompt_embedding_table')!.dataType).toBe('MODEL')
    expect(old.outputs).toEqual(now.outputs.slice(0, 19))
  })

  it("should write each release's own list and pass that release's check", () => {
    for (const version of TRITON_VERSIONS) {
      const t = translate(version)
      const config = t.files[configName(t)]!
      const declared = [...config.matchAll(/name: "([^"]+)"/g)].map((m) => m[1])
      expect(declared).toEqual([...names(TRITON_RELEASES[version].inputs), ...names(TRITON_RELEASES[version].outputs)])
      expect(inventoryProblems(t, TRITON_RELEASES[version].inventory)).toEqual([])
      expect(inventoryProblems(t, engine.inventory(version)!)).toEqual([])
    }
  })

  it("should fail the 1.0 file under the 0.19 check, naming what v0.19.0's backend does not know", () => {
    const t = translate('1.0')
    const file = configName(t)
    expect(inventoryProblems(t, engine.inventory('0.19')!)).toEqual([
      `${file}: input min_tokens is not in the template`,
      `${file}: input seed is not in the template`,
      `${file}: input return_num_input_tokens is not in the template`,
      `${file}: input return_num_output_tokens is not in the template`,
      `${file}: input prompt_embedding_table is TYPE_BF16, the template has TYPE_FP16`,
      `${file}: output num_input_tokens is not in the template`,
      `${file}: output num_output_tokens is not in the template`,
    ])
  })

  it('should fail the 0.19 file under the 1.0 check', () => {
    const t = translate('0.19')
    const file = configName(t)
    expect(inventoryProblems(t, engine.inventory('1.0')!)).toEqual([`${file}: input min_length is not in the template`, `${file}: input random_seed is not in the template`])
  })

  it('should catch a tensor whose dims, reshape, optional or ragged flag differ from the template', () => {
    const t = translate('0.19')
    const file = configName(t)
    const edit = (from: string, to: string) => {
      const text = t.files[file]!
      expect(text).toContain(from)
      return inventoryProblems({ ...t, files: { ...t.files, [file]: text.replace(from, to) } }, engine.inventory('0.19')!)
    }
    expect(edit('name: "stop_words_list"\n    data_type: TYPE_INT32\n    dims: [ 2, -1 ]', 'name: "stop_words_list"\n    data_type: TYPE_INT32\n    dims: [ -1 ]')).toEqual([`${file}: input stop_words_list has dims [-1], the template has [2,-1]`])
    expect(edit('name: "random_seed"\n    data_type: TYPE_UINT64\n    dims: [ 1 ]\n    reshape: { shape: [ ] }\n', 'name: "random_seed"\n    data_type: TYPE_UINT64\n    dims: [ 1 ]\n')).toEqual([`${file}: input random_seed has optional, the template has reshape, optional`])
    expect(edit('name: "input_ids"\n    data_type: TYPE_INT32\n    dims: [ -1 ]\n    optional: true\n    allow_ragged_batch: true', 'name: "input_ids"\n    data_type: TYPE_INT32\n    dims: [ -1 ]\n    allow_ragged_batch: true')).toEqual([`${file}: input input_ids has allow_ragged_batch, the template has optional, allow_ragged_batch`])
    expect(edit('name: "output_ids"\n    data_type: TYPE_INT32\n    dims: [ -1, -1 ]', 'name: "output_ids"\n    data_type: TYPE_INT32\n    dims: [ -1, -1 ]\n    optional: true')).toEqual([`${file}: output output_ids has optional, the template has none`])
  })
})
