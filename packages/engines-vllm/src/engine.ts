/** The vLLM engine plugin: a factory returning a plain object that the core registry accepts. */
import { CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES, type Combo, type EnginePlugin, type TranslateContext, type TranslateResult } from '@kerneltune/core'
import { VLLM_VERSIONS } from './facts.ts'
import { argsToFlags, planVllm } from './plan.ts'
import { checkCombo, refusal, resolveVersion } from '@kerneltune/core'

export interface VllmEngineOptions {
  /** The words that start the server; default `['vllm', 'serve']`. */
  readonly command?: readonly string[]
}

/** The model argument used when the context names none; replace it before running. */
export const MODEL_PLACEHOLDER = 'MODEL'

/** The vLLM plugin; its translate answers synchronously. */
export interface VllmEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
}

/**
 * Creates the vLLM engine plugin.
 *
 * @example
 * ```ts
 * const result = vllmEngine().translate({ attention_backend: 'flashinfer' }, { model: 'meta-llama/Llama-3.1-8B' })
 * // { ok: true, argv: ['vllm', 'serve', 'meta-llama/Llama-3.1-8B'], env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' }, ... }
 * ```
 */
export function vllmEngine(options: VllmEngineOptions = {}): VllmEnginePlugin {
  const command = options.command ?? ['vllm', 'serve']
  const name = 'vllm'
  const displayName = 'vLLM'
  const defaultVersion = VLLM_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: 'vLLM serve flags, compilation config and environment (validated against the v0.11.x inventory).',
    defaultVersion,
    supportedVersions: () => [...VLLM_VERSIONS],
    controls: CORE_DIMENSION_IDS,
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, VLLM_VERSIONS, defaultVersion)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const plan = planVllm(combo)
      if (!plan.ok) return refusal(name, version, plan.dimension, combo[plan.dimension]!, plan.reason)
      const notes = [...plan.notes]
      if (context.model === undefined) notes.push(`Replace ${MODEL_PLACEHOLDER} with the model id or path.`)
      return {
        ok: true,
        engine: name,
        version,
        argv: [...command, context.model ?? MODEL_PLACEHOLDER, ...argsToFlags(plan.args)],
        env: plan.env,
        files: {},
        notes,
      }
    },
  }
}
