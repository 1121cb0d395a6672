/**
 * The Triton Inference Server engine plugin. Triton delegates kernels to its backend, so the
 * combination is planned by the engine that provides that backend (TensorRT-LLM, vLLM or any
 * engine with a `tritonBackend`, found through the registry) and written into the model
 * repository: config.pbtxt, the backend's own files, and the server environment.
 */
import { checkCombo, CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES, KerneltuneError, refusal, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, EngineInventory, EngineLookup, EnginePlugin, TranslateContext, TranslateResult, TritonBackendPlan, TritonBackendProvider } from '@kerneltune/core'
import { GPT_MODEL_TYPE, MODEL_DIR, REPOSITORY, TRITON_RELEASES, TRITON_VERSIONS, repositoryInventory, type TritonBackend, type TritonRelease, type TritonVersion } from './releases.ts'
import { instanceGroup, parameters, shellQuote, tensors } from './pbtxt.ts'
import { resolveTensors, type TensorTypes } from './tensors.ts'
import { vllmBackendInventory } from './vllm-backend.ts'

export interface TritonEngineOptions {
  /**
   * The backend serving the model; `context.options.backend` overrides it. Default tensorrtllm.
   * Any backend an engine in `engines` provides (`tritonBackend.backend`) is accepted.
   */
  readonly backend?: TritonBackend | (string & {})
  /**
   * Where the backends' engines are found: the registry the Triton engine is registered in (the
   * composition root passes it). Without it no backend is available and translate says so.
   */
  readonly engines?: EngineLookup
}

export const ENGINE_DIR = 'engine_outputs'
export const MODEL_PLACEHOLDER = 'MODEL'

/**
 * `context.options.gpuDeviceIds`: the GPUs the tensorrtllm backend uses, written as its
 * `gpu_device_ids` parameter. Groups (one per model instance) are split by `;`, ids by `,`
 * (model_state.cc `utils::split(gpuDeviceIds, ';')`, `csvStrToVecInt`): "0,1" or "0,1;2,3".
 */
function gpuDeviceIds(value: unknown): string {
  if (typeof value === 'string' && /^\d+(,\d+)*(;\d+(,\d+)*)*$/.test(value)) return value
  throw new KerneltuneError('INVALID_INPUT', `Triton gpuDeviceIds ${JSON.stringify(value)} is not a GPU id list: separate ids with "," and instance groups with ";" (e.g. "0,1" or "0,1;2,3")`, { plugin: 'triton' })
}

/**
 * `context.options.maxBatchSize`: written both as trtllm-build --max_batch_size and as the model's
 * max_batch_size, which the template's tensors need (their dims leave the batch dimension out).
 * The template leaves it to `${triton_max_batch_size}`; 64 is this translator's default.
 */
export const DEFAULT_MAX_BATCH_SIZE = 64

function maxBatchSize(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_BATCH_SIZE
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1) return n
  throw new KerneltuneError('INVALID_INPUT', `Triton maxBatchSize ${JSON.stringify(value)} is not a positive integer`, { plugin: 'triton' })
}

/**
 * The logits tensors get the dtype the engine is built with (build-engine.sh passes
 * --logits_dtype float32, one of trtllm-build's two choices), and the model-dtype tensors the
 * checkpoint's dtype when the combination names it.
 */
const LOGITS_BUILD: [string, string] = ['--logits_dtype', 'float32']
const MODEL_TYPE: Readonly<Record<string, `TYPE_${string}`>> = { fp16: 'TYPE_FP16', bf16: 'TYPE_BF16' }

/**
 * What is left out when the combination names no dtype: the tensors whose type the release's
 * template takes from the checkpoint (both: encoder_input_features; 1.0 also
 * prompt_embedding_table, which 0.19 fixes at TYPE_FP16 and is therefore always written).
 */
function modelTypedNote(release: TritonRelease): string {
  const names = release.inputs.filter((t) => t.dataType === 'MODEL').map((t) => t.name)
  return `Left out (encoder-decoder and prompt-table models only): ${names.join(', ')}, whose data type the ${release.version} template takes from the checkpoint, which the combination does not name; declare TYPE_FP16 or TYPE_BF16 if the model uses them.`
}

type Done = { ok: true; env: Record<string, string>; files: Record<string, string>; notes: string[] }
type Refused = { ok: false; dimension: string; reason: string }

/** An engine that provides a Triton backend, with the provider. */
type Provider = EnginePlugin & { readonly tritonBackend: TritonBackendProvider }

function providers(engines: EngineLookup | undefined): Provider[] {
  return (engines?.list('engine') ?? []).filter((e): e is Provider => e.tritonBackend !== undefined)
}

/** The engine providing `backend`; INVALID_INPUT naming the backends there are. */
function providerOf(engines: EngineLookup | undefined, backend: unknown): Provider {
  const all = providers(engines)
  const found = all.find((e) => e.tritonBackend.backend === backend)
  if (found) return found
  const names = [...new Set(all.map((e) => e.tritonBackend.backend))].sort()
  throw new KerneltuneError('INVALID_INPUT', `Triton backend ${String(backend)} is not supported; supported backends: ${names.length ? names.join(', ') : '(none: no engine in the registry provides a Triton backend)'}`, { plugin: 'triton' })
}

/** The providing engine's version for this translation: `options.<engine>Version` (vllmVersion), else its default. */
function providerVersion(engine: Provider, requested: unknown): string {
  const version = requested ?? engine.defaultVersion
  if (typeof version === 'string' && engine.supportedVersions().includes(version)) return version
  throw new KerneltuneError('INVALID_INPUT', `${engine.displayName} version ${String(version)} is not supported for the Triton ${engine.tritonBackend.backend} backend; supported versions: ${engine.supportedVersions().join(', ')}`, { plugin: 'triton' })
}

function viaTrtllm(combo: Combo, release: TritonRelease, context: TranslateContext, engine: Provider): Done | Refused {
  if (combo.cuda_graph === 'dynamic') {
    return { ok: false, dimension: 'cuda_graph', reason: "Triton's tensorrtllm backend has cuda_graph_mode (graphs per batch size) only; dynamic graphs cannot be expressed in Triton's config" }
  }
  const plan = engine.tritonBackend.plan(combo, { ...context, version: release.trtllmVersion })
  if (!plan.ok) return { ok: false, dimension: plan.dimension, reason: `with the tensorrtllm backend: ${plan.reason}` }
  const params: Record<string, string> = { gpt_model_type: GPT_MODEL_TYPE, gpt_model_path: ENGINE_DIR }
  for (const [key, value] of Object.entries(plan.args)) params[key] = String(value)
  const gpus = context.options?.gpuDeviceIds
  if (gpus !== undefined) params.gpu_device_ids = gpuDeviceIds(gpus)
  const batch = maxBatchSize(context.options?.maxBatchSize)
  const build = ['trtllm-build', '--checkpoint_dir', context.model ?? 'CHECKPOINT_DIR', '--output_dir', ENGINE_DIR, ...(plan.build ?? []).flat(), '--max_batch_size', String(batch), ...LOGITS_BUILD]
  const model = MODEL_TYPE[combo.activation_dtype ?? '']
  const types: TensorTypes = { logits: 'TYPE_FP32', ...(model ? { model } : {}) }
  const config = [
    'backend: "tensorrtllm"',
    `max_batch_size: ${batch}`,
    tensors('input', resolveTensors(release.inputs, types)) + tensors('output', resolveTensors(release.outputs, types)),
  ].join('\n')
  return {
    ok: true,
    env: {},
    files: {
      'build-engine.sh': `#!/bin/sh\n${build.map(shellQuote).join(' ')}\n`,
      // KIND_CPU as in the upstream template: the backend places the model on the GPUs itself.
      [`${REPOSITORY}/${MODEL_DIR.tensorrtllm}/config.pbtxt`]: `${config}${instanceGroup(release.instanceKind)}${parameters(params)}`,
    },
    notes: [
      ...plan.notes,
      'Run build-engine.sh first; set gpt_model_path to the absolute path of the built engine.',
      `Inputs and outputs are the template's (${release.template}tensorrt_llm/config.pbtxt, ${release.tensorsReadAt}); max_batch_size ${batch} is the engine's --max_batch_size (context option maxBatchSize changes both), and the logits tensors are TYPE_FP32 as the engine is built with --logits_dtype float32.`,
      ...(model ? [] : [modelTypedNote(release)]),
      'Streaming needs model_transaction_policy { decoupled: true } (the template\'s ${decoupled_mode}); it is not written.',
      gpus === undefined ? 'The instance group is KIND_CPU, as upstream: pick GPUs with context option gpuDeviceIds (gpu_device_ids, e.g. "0,1"), not with the instance kind.' : `gpu_device_ids ${String(gpus)}: one instance per ";"-separated group.`,
      `A full TensorRT-LLM repository also needs the preprocessing/postprocessing/ensemble models of ${release.template} (backend release ${release.version}); only the tensorrt_llm model is written here.`,
    ],
  }
}

function viaVllm(combo: Combo, context: TranslateContext, engine: Provider): Done | Refused {
  const release = { version: providerVersion(engine, context.options?.vllmVersion) }
  const model = context.model
  const plan = engine.tritonBackend.plan(combo, { ...context, version: release.version })
  if (!plan.ok) return { ok: false, dimension: plan.dimension, reason: `with the vllm backend (vLLM ${release.version}): ${plan.reason}` }
  const dir = `${REPOSITORY}/${MODEL_DIR.vllm}`
  return {
    ok: true,
    // vLLM reads its environment variables from the tritonserver process.
    env: plan.env,
    files: {
      [`${dir}/config.pbtxt`]: `backend: "vllm"\n${instanceGroup('KIND_MODEL')}`,
      [`${dir}/1/model.json`]: JSON.stringify({ model: model ?? MODEL_PLACEHOLDER, ...plan.args }, null, 2) + '\n',
    },
    notes: [`model.json holds vLLM ${release.version} engine arguments (context option vllmVersion picks the release in the container).`, ...plan.notes],
  }
}

/**
 * A backend Triton has no special knowledge of (a third-party engine's): config.pbtxt names it
 * and carries the engine arguments as parameters, which the backend reads from its model config.
 */
function viaOther(combo: Combo, context: TranslateContext, engine: Provider): Done | Refused {
  const backend = engine.tritonBackend.backend
  const version = providerVersion(engine, context.options?.[`${engine.name}Version`])
  const plan: TritonBackendPlan | Refused = engine.tritonBackend.plan(combo, { ...context, version })
  if (!plan.ok) return { ok: false, dimension: plan.dimension, reason: `with the ${backend} backend (${engine.displayName} ${version}): ${plan.reason}` }
  const params: Record<string, string> = {}
  for (const [key, value] of Object.entries(plan.args)) params[key] = typeof value === 'string' ? value : JSON.stringify(value)
  const files: Record<string, string> = { [`${REPOSITORY}/${backend}_model/config.pbtxt`]: `backend: "${backend}"\n${instanceGroup('KIND_MODEL')}${parameters(params)}` }
  if (plan.build?.length) files['build-model.sh'] = `#!/bin/sh\n${plan.build.flat().map(shellQuote).join(' ')}\n`
  return { ok: true, env: { ...plan.env }, files, notes: [`${engine.displayName} ${version} (engine ${engine.name}) serves the model as Triton's ${backend} backend.`, ...plan.notes] }
}

/** The Triton plugin; its translate answers synchronously. */
export interface TritonEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
  inventory(version: string): EngineInventory | undefined
}

/**
 * Creates the Triton engine plugin. Its versions are TensorRT-LLM backend releases.
 *
 * @example
 * ```ts
 * const registry = createRegistry([vllmEngine(), trtllmEngine()])
 * registry.register(tritonEngine({ backend: 'vllm', engines: registry }))
 *   .translate({ attention_backend: 'flashinfer' }, { model: 'org/model', options: { vllmVersion: '0.11.2' } })
 * // argv: ['tritonserver', '--model-repository=model_repository'], env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' },
 * // files: config.pbtxt and 1/model.json under model_repository/vllm_model
 * ```
 */
export function tritonEngine(options: TritonEngineOptions = {}): TritonEnginePlugin {
  const name = 'triton'
  const displayName = 'Triton Inference Server'
  const defaultVersion = TRITON_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `Triton model repository (config.pbtxt) for the tensorrtllm or vllm backend (TensorRT-LLM backend releases ${TRITON_VERSIONS.join(', ')}).`,
    defaultVersion,
    supportedVersions: () => [...TRITON_VERSIONS],
    controls: CORE_DIMENSION_IDS,
    inventory: (version) => {
      const release = TRITON_RELEASES[version as TritonVersion]
      if (!release) return undefined
      const backend = options.backend ?? 'tensorrtllm'
      // No engine provides the backend: no inventory is known (translate says why).
      const engine = providers(options.engines).find((e) => e.tritonBackend.backend === backend)
      if (!engine) return undefined
      // The vllm backend's files are vLLM's: its inventory is the default vLLM release's.
      if (backend === 'vllm') return vllmBackendInventory(engine.defaultVersion, engine.inventory?.(engine.defaultVersion))
      // build-engine.sh is checked against the inventory of the trtllm-build release it targets.
      if (backend === 'tensorrtllm') return repositoryInventory(release, engine.inventory?.(release.trtllmVersion)?.flags)
      const own = engine.inventory?.(engine.defaultVersion)
      return { flags: { '--model-repository': { type: 'str' } }, env: own?.env ?? {}, evidence: [`the ${backend} backend's environment is ${engine.displayName} ${engine.defaultVersion}'s (engine ${engine.name})`] }
    },
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, TRITON_VERSIONS, defaultVersion) as TritonVersion
      const backend = context.options?.backend ?? options.backend ?? 'tensorrtllm'
      const engine = providerOf(options.engines, backend)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const out = backend === 'vllm' ? viaVllm(combo, context, engine) : backend === 'tensorrtllm' ? viaTrtllm(combo, TRITON_RELEASES[version], context, engine) : viaOther(combo, context, engine)
      if (!out.ok) return refusal(name, version, out.dimension, combo[out.dimension]!, out.reason)
      return {
        ok: true,
        engine: name,
        version,
        argv: ['tritonserver', `--model-repository=${REPOSITORY}`],
        env: out.env,
        files: out.files,
        notes: [`backend: ${backend}`, ...out.notes],
      }
    },
  }
}
