/**
 * The `trtllm-serve` engine plugin: TensorRT-LLM's PyTorch backend, which has replaced
 * trtllm-build flags for most users. A translation is `trtllm-serve MODEL` plus a file of LLM API
 * options passed with the release's flag. It is its own target, registered beside `trtllm`,
 * because its names (attn_backend, cuda_graph_config) share nothing with trtllm-build's.
 */
import { applyControls, checkCombo, CORE_DIMENSION_VALUES, refusal, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, CoreDimensionId, EnginePlugin, TranslateContext, TranslateResult } from '@kerneltune/core'
import { ATTN_BACKENDS, CUDA_GRAPH_BATCH_SIZES, LLM_API_FILE, TRTLLM_SERVE_RELEASES, TRTLLM_SERVE_VERSIONS, type TrtllmServeRelease } from './serve-releases.ts'
import { trtllmServeServing } from './serve-serving.ts'

export const SERVE_MODEL_PLACEHOLDER = 'MODEL'

// The PyTorch backend has no option with evidence for the KV layout, the GEMM path or fusion:
// those are left to it, and only their neutral values are accepted.
const CONTROLS = ['attention_backend', 'activation_dtype', 'cuda_graph'] as const satisfies readonly CoreDimensionId[]

type ServePlan =
  | { ok: true; options: Record<string, unknown>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

const no = (dimension: CoreDimensionId, reason: string): ServePlan => ({ ok: false, dimension, reason })
const ATTN: Partial<Record<string, (typeof ATTN_BACKENDS)[number]>> = { flash_attn_v2: 'TRTLLM', flashinfer: 'FLASHINFER', native: 'VANILLA' }

/** Plans a combination whose keys are controlled core dimensions with known values. */
export function planTrtllmServe(v: Partial<Record<CoreDimensionId, string>>): ServePlan {
  const options: Record<string, unknown> = {}
  const notes: string[] = []
  if (v.attention_backend !== undefined) {
    const backend = ATTN[v.attention_backend]
    if (!backend) {
      return no('attention_backend', `the PyTorch backend's attn_backend accepts ${ATTN_BACKENDS.join(', ')}; ${v.attention_backend} has none of them (TRTLLM is TensorRT-LLM's own paged FMHA/XQA, FLASHINFER is FlashInfer, VANILLA is unfused PyTorch)`)
    }
    options.attn_backend = backend
    if (backend === 'TRTLLM') notes.push("flash_attn_v2 maps to attn_backend TRTLLM, TensorRT-LLM's own fused attention (a FlashAttention-2-class kernel), not the FlashAttention library.")
  }

  switch (v.activation_dtype) {
    case 'fp16':
    case 'bf16':
      notes.push(`The PyTorch backend computes in the checkpoint's dtype: serve a ${v.activation_dtype} checkpoint.`)
      break
    case 'fp8_e4m3':
      notes.push('fp8 needs an FP8-quantized checkpoint (ModelOpt); trtllm-serve does not quantize.')
      break
    case 'fp8_e5m2':
      return no('activation_dtype', 'TensorRT-LLM fp8 GEMMs and attention are e4m3; e5m2 activations cannot be expressed')
  }

  if (v.cuda_graph !== undefined) {
    switch (v.cuda_graph) {
      case 'off':
        // "None disables" CUDA graphs (CudaGraphConfig help).
        options.cuda_graph_config = null
        break
      case 'per-shape':
        options.cuda_graph_config = { batch_sizes: [...CUDA_GRAPH_BATCH_SIZES], enable_padding: false }
        break
      case 'dynamic':
        options.cuda_graph_config = { batch_sizes: [...CUDA_GRAPH_BATCH_SIZES], enable_padding: true }
        notes.push('dynamic maps to enable_padding: batches are padded up to the nearest captured size, the closest the PyTorch backend has to dynamic-shape graphs.')
        break
    }
  }
  return { ok: true, options, notes }
}

/** The trtllm-serve plugin; its translate answers synchronously. */
export interface TrtllmServeEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
}

/**
 * Creates the trtllm-serve engine plugin. `context.model` is a Hugging Face model id or path.
 *
 * @example
 * ```ts
 * trtllmServeEngine().translate({ attention_backend: 'flashinfer', cuda_graph: 'per-shape' }, { model: 'org/model' })
 * // argv: ['trtllm-serve', 'org/model', '--config', 'llm_api_options.yaml']
 * // files: { 'llm_api_options.yaml': '{"attn_backend": "FLASHINFER", "cuda_graph_config": {...}}' }
 * ```
 */
export function trtllmServeEngine(): TrtllmServeEnginePlugin {
  const name = 'trtllm-serve'
  const displayName = 'TensorRT-LLM (trtllm-serve, PyTorch backend)'
  const defaultVersion = TRTLLM_SERVE_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: 'trtllm-serve command line and LLM API options file (PyTorch backend; TensorRT-LLM 1.0, 1.2, 1.3).',
    defaultVersion,
    supportedVersions: () => [...TRTLLM_SERVE_VERSIONS],
    controls: CONTROLS,
    inventory: (version) => TRTLLM_SERVE_RELEASES[version as keyof typeof TRTLLM_SERVE_RELEASES]?.inventory,
    serving: trtllmServeServing(defaultVersion),
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, TRTLLM_SERVE_VERSIONS, defaultVersion) as TrtllmServeRelease['version']
      const release = TRTLLM_SERVE_RELEASES[version]
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const controlled = applyControls(name, displayName, version, combo, CONTROLS)
      if (!controlled.ok) return controlled
      const plan = planTrtllmServe(controlled.combo)
      if (!plan.ok) return refusal(name, version, plan.dimension, combo[plan.dimension]!, plan.reason)
      const files: Record<string, string> = {}
      const argv = ['trtllm-serve', context.model ?? SERVE_MODEL_PLACEHOLDER]
      if (Object.keys(plan.options).length > 0) {
        files[LLM_API_FILE] = JSON.stringify(plan.options, null, 2) + '\n'
        argv.push(release.optionsFlag, LLM_API_FILE)
      }
      const notes = [...controlled.notes, ...plan.notes]
      if (context.model === undefined) notes.push(`Replace ${SERVE_MODEL_PLACEHOLDER} with the model id or path.`)
      notes.push('No --backend flag: the PyTorch backend is the 1.x default (documented, not verified from source).')
      if (files[LLM_API_FILE]) notes.push(`${LLM_API_FILE} is JSON, which YAML loaders read unchanged.`)
      return { ok: true, engine: name, version, argv, env: {}, files, notes }
    },
  }
}
