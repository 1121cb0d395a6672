/**
 * vLLM's serving sweep space (`kerneltune sweep --engine vllm --backend server`): settings of its
 * server that this translator writes at a release, each kept only where the release accepts it
 * (the translator refuses the others, from the release's inventory). Quick crosses chunked prefill
 * off and on (--no-enable-chunked-prefill / --enable-chunked-prefill: kv_layout paged and
 * chunked); standard adds the activation dtype (--dtype) and the attention backends the release
 * has (--attention-backend, or VLLM_ATTENTION_BACKEND before v0.13.0). The baseline is vLLM's own
 * defaults: a combination that writes no flag.
 */
import { CORE_DIMENSION_VALUES } from '@kerneltune/core/lite'
import { vllmEngine } from './engine.ts'

export type VllmServingSweepSpace = Readonly<Record<string, readonly string[]>>

export function vllmServingSweepSpace(version: string, mode: 'quick' | 'standard'): VllmServingSweepSpace {
  const engine = vllmEngine()
  const legal = (dimension: string, values: readonly string[]) => values.filter((v) => engine.translate({ [dimension]: v }, { version }).ok)
  const space: Record<string, readonly string[]> = { kv_layout: legal('kv_layout', ['paged', 'chunked']) }
  if (mode === 'standard') {
    space.activation_dtype = legal('activation_dtype', ['bf16', 'fp16'])
    space.attention_backend = legal('attention_backend', CORE_DIMENSION_VALUES.attention_backend)
  }
  return space
}
