/**
 * What each supported Triton TensorRT-LLM backend release accepts, as data, with where each fact
 * comes from (VERSIONS.md §0 and §6).
 *
 * A Triton translation is versioned by the TensorRT-LLM backend release, because that is what
 * decides the tensorrt_llm model's config.pbtxt: its template, its parameters and the
 * TensorRT-LLM that builds the engine. The Triton server fields written (`backend`,
 * `instance_group`, `parameters`) are model_config.proto's (common @ 83adf7cf).
 */
import type { EngineInventory, InventoryEntry, Translation } from '@kerneltune/core'
import { TEMPLATE_TENSORS, type TemplateTensor, type TemplateTensors } from './tensors.ts'

/** Newest first; the first is the default. */
export const TRITON_VERSIONS = ['1.0', '0.19'] as const
export type TritonVersion = (typeof TRITON_VERSIONS)[number]

export const BACKENDS = ['tensorrtllm', 'vllm'] as const
export type TritonBackend = (typeof BACKENDS)[number]

/** Model repository layout the translation writes. */
export const REPOSITORY = 'model_repository'
export const MODEL_DIR = { tensorrtllm: 'tensorrt_llm', vllm: 'vllm_model' } as const

/** tensorrtllm backend: batching mode for in-flight batching (gpt_model_type). */
export const GPT_MODEL_TYPE = 'inflight_fused_batching'

/**
 * tensorrtllm backend parameters a translation may write, with the values the backend reads
 * (v0.19.0 model_instance_state.cc L62-76 for gpt_model_type, L213-232 for the CUDA graph
 * parameters; model_state.cc L97-104 for gpu_device_ids: groups split by `;`, ids by `,`).
 */
const TRTLLM_PARAMETERS: Record<string, InventoryEntry> = {
  gpt_model_type: { choices: ['V1', 'v1', 'inflight_batching', 'inflight_fused_batching'] },
  gpt_model_path: { type: 'str' },
  enable_chunked_context: { type: 'bool' },
  cuda_graph_mode: { type: 'bool' },
  cuda_graph_cache_size: { type: 'int' },
  gpu_device_ids: { type: 'str' },
}

export interface TritonRelease {
  readonly version: TritonVersion
  /** Where the upstream model repository template (with preprocessing, postprocessing, ensemble) lives. */
  readonly template: string
  /** The instance_group kind of the upstream tensorrt_llm template. */
  readonly instanceKind: 'KIND_CPU'
  /** The trtllm-build release whose flags build-engine.sh uses. */
  readonly trtllmVersion: '1.0'
  readonly parameters: Readonly<Record<string, InventoryEntry>>
  /** This release's template input and output tensors (tensors.ts), with where they were read. */
  readonly inputs: readonly TemplateTensor[]
  readonly outputs: readonly TemplateTensor[]
  /** Which copy of the template the tensors were read from, in a few words. */
  readonly tensorsReadAt: string
  /**
   * The model repository's check without build-engine.sh's flags: those are trtllm-build's, whose
   * inventory the engine providing the tensorrtllm backend holds; the plugin's `inventory(version)`
   * adds them (repositoryInventory).
   */
  readonly inventory: EngineInventory
}

const SERVER_FLAGS: Record<string, InventoryEntry> = { '--model-repository': { type: 'str' } }

/**
 * model_config.proto top-level fields a translation writes (common @ 83adf7cf; `input` and
 * `output` are ModelConfig's `repeated ModelInput input` and `repeated ModelOutput output = 6`,
 * read in the stored copy at 08365eae).
 */
const CONFIG_FIELDS = new Set(['backend', 'max_batch_size', 'input', 'output', 'instance_group', 'parameters'])
const INSTANCE_KINDS = new Set(['KIND_CPU', 'KIND_MODEL'])

function valueProblem(name: string, entry: InventoryEntry | undefined, value: string): string | undefined {
  if (!entry) return `${name} is not in the inventory`
  if (entry.choices && !entry.choices.map(String).includes(value)) return `${name}=${value} is not one of ${entry.choices.join(', ')}`
  if (entry.type === 'bool' && value !== 'true' && value !== 'false') return `${name}=${value} is not true or false`
  if (entry.type === 'int' && !/^\d+$/.test(value)) return `${name}=${value} is not an integer`
  return undefined
}

interface Declared {
  readonly name: string
  readonly dataType: string
  readonly dims: string
  readonly attrs: string
}

/** The attributes the check compares, as one comparable string. */
const attrsOf = (reshape: boolean, optional: boolean, ragged: boolean) => [reshape ? 'reshape' : '', optional ? 'optional' : '', ragged ? 'allow_ragged_batch' : ''].filter(Boolean).join(', ') || 'none'

/** The tensors of an `input [...]` or `output [...]` block: name, data type, dims and attributes. */
function declared(text: string, kind: 'input' | 'output'): Declared[] {
  const block = new RegExp(`^${kind} \\[\\n([\\s\\S]*?)^\\]`, 'm').exec(text)?.[1] ?? ''
  // An entry ends at a line holding only its closing brace (`reshape: { shape: [ ] }` shares its line).
  return block.split(/^\s*\},?[ \t]*$/m).flatMap((entry) => {
    const name = /name: "([^"]+)"/.exec(entry)?.[1]
    if (name === undefined) return []
    return [{
      name,
      dataType: /data_type: (\S+)/.exec(entry)?.[1] ?? '(none)',
      dims: /dims: \[([^\]]*)\]/.exec(entry)?.[1]?.replace(/\s+/g, '') ?? '(none)',
      attrs: attrsOf(/reshape: \{ shape: \[ \] \}/.test(entry), /optional: true/.test(entry), /allow_ragged_batch: true/.test(entry)),
    }]
  })
}

/**
 * Declared tensors against the release's template: every name known to that release, data types
 * where the template fixes them, dims, reshape/optional/allow_ragged_batch as the template has
 * them, and every required input present. A name another release has (1.0's `seed` under 0.19)
 * is flagged: the backend of this release never reads it.
 */
function tensorProblems(file: string, text: string, release: TemplateTensors): string[] {
  const problems: string[] = []
  for (const kind of ['input', 'output'] as const) {
    const template = new Map((kind === 'input' ? release.inputs : release.outputs).map((x) => [x.name, x]))
    const got = declared(text, kind)
    if (got.length === 0) problems.push(`${file}: no ${kind} tensors declared (the backend does not fill them in)`)
    for (const { name, dataType, dims, attrs } of got) {
      const t = template.get(name)
      if (!t) {
        problems.push(`${file}: ${kind} ${name} is not in the template`)
        continue
      }
      if (t.dataType.startsWith('TYPE_') && t.dataType !== dataType) problems.push(`${file}: ${kind} ${name} is ${dataType}, the template has ${t.dataType}`)
      if (dims !== t.dims.join(',')) problems.push(`${file}: ${kind} ${name} has dims [${dims}], the template has [${t.dims.join(',')}]`)
      const want = attrsOf(t.reshape === true, t.optional === true, t.allowRaggedBatch === true)
      if (attrs !== want) problems.push(`${file}: ${kind} ${name} has ${attrs}, the template has ${want}`)
    }
    for (const t of template.values()) if (!t.optional && kind === 'input' && !got.some((g) => g.name === t.name)) problems.push(`${file}: required input ${t.name} is missing`)
  }
  return problems
}

/**
 * The model repository check: config.pbtxt fields, instance kinds, input/output tensors against
 * the template, tensorrtllm parameters (names and values), every flag of build-engine.sh against
 * the trtllm-build inventory, and max_batch_size against the engine's --max_batch_size.
 */
function repositoryProblems(t: Translation, parametersOf: Readonly<Record<string, InventoryEntry>>, release: TemplateTensors, build: Readonly<Record<string, InventoryEntry>> | undefined): string[] {
  const problems: string[] = []
  const script = t.files['build-engine.sh']
  const engineBatch = script ? /--max_batch_size (\d+)/.exec(script)?.[1] : undefined
  for (const [file, text] of Object.entries(t.files)) {
    if (file.endsWith('config.pbtxt')) {
      for (const m of text.matchAll(/^(\w+)\s*[:[{]/gm)) if (!CONFIG_FIELDS.has(m[1]!)) problems.push(`${file}: field ${m[1]} is not written by this translator's inventory`)
      for (const m of text.matchAll(/kind: (\w+)/g)) if (!INSTANCE_KINDS.has(m[1]!)) problems.push(`${file}: instance kind ${m[1]}`)
      if (text.startsWith('backend: "tensorrtllm"')) {
        for (const m of text.matchAll(/key: "([^"]+)"\n\s*value: \{ string_value: "([^"]*)" \}/g)) {
          const p = valueProblem(`parameter ${m[1]}`, parametersOf[m[1]!], m[2]!)
          if (p) problems.push(`${file}: ${p}`)
        }
        problems.push(...tensorProblems(file, text, release))
        const batch = /^max_batch_size: (\d+)$/m.exec(text)?.[1]
        if (batch === undefined || batch === '0') problems.push(`${file}: max_batch_size must be set: the template's dims leave the batch dimension out`)
        else if (batch !== engineBatch) problems.push(`${file}: max_batch_size ${batch} differs from build-engine.sh --max_batch_size ${engineBatch ?? '(unset)'}`)
      }
    } else if (file === 'build-engine.sh' && build) {
      const words = text.split('\n')[1]!.split(' ').map((w) => w.replace(/^'|'$/g, ''))
      for (let i = 1; i < words.length; i += 2) {
        const p = valueProblem(`trtllm-build ${words[i]}`, build[words[i]!], words[i + 1] ?? '')
        if (p) problems.push(`build-engine.sh: ${p}`)
      }
    }
  }
  return problems
}

/**
 * Both releases take the inflight_batcher_llm templates with the same parameters; they differ in
 * where the templates live, in their tensors (each release's own list, tensors.ts) and in the evidence.
 */
function release(version: TritonVersion, template: string, tensorsReadAt: string, evidence: readonly string[]): TritonRelease {
  const tensors: TemplateTensors = TEMPLATE_TENSORS[version]
  return {
    version,
    template,
    tensorsReadAt,
    instanceKind: 'KIND_CPU',
    trtllmVersion: '1.0',
    parameters: TRTLLM_PARAMETERS,
    inputs: tensors.inputs,
    outputs: tensors.outputs,
    inventory: { flags: SERVER_FLAGS, env: {}, check: (t) => repositoryProblems(t, TRTLLM_PARAMETERS, tensors, undefined), evidence },
  }
}

/** A release's repository check with build-engine.sh's flags checked against trtllm-build's `buildFlags`. */
export function repositoryInventory(release: TritonRelease, buildFlags: Readonly<Record<string, InventoryEntry>> | undefined): EngineInventory {
  const tensors = { inputs: release.inputs, outputs: release.outputs }
  return { ...release.inventory, check: (t) => repositoryProblems(t, release.parameters, tensors, buildFlags) }
}

export const TRITON_RELEASES: Readonly<Record<TritonVersion, TritonRelease>> = {
  '1.0': release('1.0', 'NVIDIA/TensorRT-LLM triton_backend/all_models/inflight_batcher_llm/', 'read at TensorRT-LLM commits 2a9abd95 and 0c8de69a, identical there', [
    'tensorrtllm_backend tag v1.0.0 pins TensorRT-LLM ae8270b7 (git ls-tree); after v0.19.0 the templates live in NVIDIA/TensorRT-LLM triton_backend/all_models (removal commit 6a749f5, 2025-05-20; README: "the Triton backend source code and test have been moved")',
    'input and output tensors: NVIDIA/TensorRT-LLM triton_backend/all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt read at 2a9abd95 and at 0c8de69a (62 inputs, 21 outputs, the same in both; a copy at the pinned ae8270b7 could not be read), with KIND_CPU (instance_group after the output block) and the parameter names unchanged from v0.19.0',
    'build-engine.sh uses the trtllm-build 1.0 inventory (engines-trtllm)',
  ]),
  '0.19': release('0.19', 'triton-inference-server/tensorrtllm_backend all_models/inflight_batcher_llm/', 'read at tag v0.19.0 (c1e19638): 60 inputs, 19 outputs', [
    'triton-inference-server/tensorrtllm_backend tag v0.19.0 (c1e19638, git), the last tag with all_models/: all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt L580-584 `kind : KIND_CPU`, L599-601 gpt_model_type, L721-723 gpu_device_ids, L829-837 cuda_graph_mode and cuda_graph_cache_size',
    'inflight_batcher_llm/src/model_instance_state.cc L62-76, L213-232; src/model_state.cc L97-104',
    'input and output tensors: the same config.pbtxt at v0.19.0, input block L41-482 (60 tensors), output block L483-579 (19). Where 1.0 differs: L223 `min_length` and L251 `random_seed` (1.0: min_tokens, seed), the names the backend reads (inflight_batcher_llm/src/utils.h L92 `minLength = "min_length"`, L96 `randomSeed = "random_seed"`); no return_num_input_tokens/return_num_output_tokens inputs and no num_input_tokens/num_output_tokens outputs; L307-308 prompt_embedding_table `data_type: TYPE_FP16` (1.0: ${prompt_embedding_table_data_type})',
    'build-engine.sh uses the trtllm-build 1.0 inventory: the trtllm-build flags of the TensorRT-LLM that v0.19.0 pins (c6f7d423, git ls-tree v0.19.0 tensorrt_llm) were not read',
  ]),
}
