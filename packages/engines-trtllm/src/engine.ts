/** The TensorRT-LLM engine plugin: trtllm-build flags plus executor runtime parameters. */
import { checkCombo, CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES, refusal, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, EngineInventory, EnginePlugin, TranslateContext, TranslateResult, TritonBackendContext, TritonBackendProvider } from '@kerneltune/core'
import { TRTLLM_CATALOG } from './catalog.ts'
import { planTrtllm } from './plan.ts'
import { smOf, TRTLLM_INVENTORIES, TRTLLM_VERSIONS, type TrtllmVersion } from './releases.ts'

/** The file holding the executor runtime parameters. */
export const RUNTIME_FILE = 'runtime-parameters.json'
export const CHECKPOINT_PLACEHOLDER = 'CHECKPOINT_DIR'
export const ENGINE_DIR = 'engine_outputs'

/** The TensorRT-LLM plugin; its translate answers synchronously. */
export interface TrtllmEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
  inventory(version: string): EngineInventory | undefined
  readonly tritonBackend: TritonBackendProvider
}

/**
 * Creates the TensorRT-LLM engine plugin (the trtllm-build path; `trtllmServeEngine` is the
 * PyTorch backend). `context.model` is the converted checkpoint directory; `context.hardware`
 * decides the SM-dependent plugins.
 *
 * @example
 * ```ts
 * trtllmEngine().translate({ kv_layout: 'chunked', cuda_graph: 'per-shape' }, { model: './ckpt' })
 * // argv: trtllm-build --checkpoint_dir ./ckpt --output_dir engine_outputs --kv_cache_type paged ...
 * // files: { 'runtime-parameters.json': '{"enable_chunked_context":true,"cuda_graph_mode":true}' }
 * ```
 */
export function trtllmEngine(): TrtllmEnginePlugin {
  const name = 'trtllm'
  const displayName = 'TensorRT-LLM'
  const defaultVersion = TRTLLM_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `trtllm-build flags and executor runtime parameters (TensorRT-LLM ${TRTLLM_VERSIONS.join(', ')}).`,
    defaultVersion,
    supportedVersions: () => [...TRTLLM_VERSIONS],
    controls: CORE_DIMENSION_IDS,
    inventory: (version) => TRTLLM_INVENTORIES[version as TrtllmVersion],
    // Triton's tensorrtllm backend serves an engine built by trtllm-build, with the executor's
    // runtime settings as config.pbtxt parameters.
    tritonBackend: {
      backend: 'tensorrtllm',
      plan(combo: Combo, context: TritonBackendContext) {
        const sm = smOf(context.hardware?.computeCapability)
        const plan = planTrtllm(combo, sm === undefined ? {} : { sm })
        return plan.ok ? { ok: true, args: plan.runtime, build: plan.build, env: {}, notes: plan.notes } : plan
      },
    },
    catalogExtension: TRTLLM_CATALOG,
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, TRTLLM_VERSIONS, defaultVersion)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const sm = smOf(context.hardware?.computeCapability)
      const plan = planTrtllm(combo, sm === undefined ? {} : { sm })
      if (!plan.ok) return refusal(name, version, plan.dimension, combo[plan.dimension]!, plan.reason)
      const notes = [...plan.notes]
      if (context.model === undefined) notes.push(`Replace ${CHECKPOINT_PLACEHOLDER} with the converted TensorRT-LLM checkpoint directory.`)
      const files: Record<string, string> = {}
      if (Object.keys(plan.runtime).length > 0) {
        files[RUNTIME_FILE] = JSON.stringify(plan.runtime, null, 2) + '\n'
        notes.push(`${RUNTIME_FILE} holds executor runtime parameters (the tensorrtllm Triton backend reads them from config.pbtxt).`)
      }
      return {
        ok: true,
        engine: name,
        version,
        argv: ['trtllm-build', '--checkpoint_dir', context.model ?? CHECKPOINT_PLACEHOLDER, '--output_dir', ENGINE_DIR, ...plan.build.flat()],
        env: {},
        files,
        notes,
      }
    },
  }
}
