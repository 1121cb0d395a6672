/** The vLLM engine plugin: a factory returning a plain object that the core registry accepts. */
import { CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES, checkCombo, KerneltuneError, refusal } from '@kerneltune/core/lite'
import type { Combo, EnginePlugin, TranslateContext, TranslateResult, TritonBackendContext, TritonBackendProvider } from '@kerneltune/core'
import { argsToFlags, planVllm } from './plan.ts'
import { VLLM_DEFAULT_VERSION, VLLM_VERSIONS, vllmInventory, vllmRelease } from './releases.ts'
import { vllmServing } from './serving.ts'

export interface VllmEngineOptions {
  /** The words that start the server; default `['vllm', 'serve']`. */
  readonly command?: readonly string[]
}

/** The model argument used when the context names none; replace it before running. */
export const MODEL_PLACEHOLDER = 'MODEL'

/** The vLLM plugin; its translate answers synchronously. */
export interface VllmEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
  readonly tritonBackend: TritonBackendProvider
}

/**
 * Releases are matched exactly (with or without a leading `v`): neighbouring releases differ in
 * what they read (see releases.ts), so `0.11.1` is not taken for `0.11.2`.
 */
function resolve(requested: string): string {
  const bare = requested.replace(/^v/, '')
  if ((VLLM_VERSIONS as readonly string[]).includes(bare)) return bare
  throw new KerneltuneError('INVALID_INPUT',
    `vLLM version ${requested} is not supported; supported versions: ${VLLM_VERSIONS.join(', ')} (each checked against VERSIONS.md; the others differ in what they accept)`,
    { details: { requested, supported: [...VLLM_VERSIONS] }, plugin: 'vllm' })
}

/**
 * Creates the vLLM engine plugin.
 *
 * @example
 * ```ts
 * const result = vllmEngine().translate({ attention_backend: 'flashinfer' }, { model: 'meta-llama/Llama-3.1-8B' })
 * // { ok: true, version: '0.32.0', argv: ['vllm', 'serve', 'meta-llama/Llama-3.1-8B', '--attention-backend', 'FLASHINFER'], env: {}, ... }
 * vllmEngine().translate({ attention_backend: 'flashinfer' }, { version: '0.11.2' })
 * // env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } (that release reads only the variable)
 * ```
 */
export function vllmEngine(options: VllmEngineOptions = {}): VllmEnginePlugin {
  const command = options.command ?? ['vllm', 'serve']
  const name = 'vllm'
  const displayName = 'vLLM'
  const defaultVersion = VLLM_DEFAULT_VERSION
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `vLLM serve flags, compilation config and environment, per release (${VLLM_VERSIONS.join(', ')}).`,
    defaultVersion,
    supportedVersions: () => [...VLLM_VERSIONS],
    controls: CORE_DIMENSION_IDS,
    inventory: (version: string) => vllmInventory(resolve(version)),
    serving: vllmServing(defaultVersion),
    // Triton's vllm backend passes model.json to vLLM as engine arguments and runs it in-process.
    tritonBackend: {
      backend: 'vllm',
      plan(combo: Combo, context: TritonBackendContext) {
        const plan = planVllm(combo, vllmRelease(resolve(context.version)))
        return plan.ok ? { ok: true, args: { ...plan.args }, env: plan.env, notes: plan.notes } : plan
      },
    },
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = context.version === undefined ? defaultVersion : resolve(context.version)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const plan = planVllm(combo, vllmRelease(version))
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
