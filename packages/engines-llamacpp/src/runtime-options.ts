/**
 * Turns a combination into node-llama-cpp model and context options: the same settings the
 * llama-server translation expresses, in the form the measurement backend can apply in-process.
 * Pure, so it is tested without loading llama.cpp.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { Combo } from '@kerneltune/core'
import { DEFAULTS, QUANTIZED_KV_TYPES } from './facts.ts'
import { LLAMACPP_RULES } from './catalog-extension.ts'

/** node-llama-cpp's GgmlType names for the KV cache types llama-server accepts. */
const KV_TYPE_NAMES: Readonly<Record<string, string>> = {
  f32: 'F32', f16: 'F16', bf16: 'BF16', q8_0: 'Q8_0', q4_0: 'Q4_0', q4_1: 'Q4_1', iq4_nl: 'IQ4_NL', q5_0: 'Q5_0', q5_1: 'Q5_1',
}

export interface RuntimeOptions {
  readonly model: { gpuLayers: number | 'auto' | 'max'; useMmap: boolean; useMlock: boolean }
  readonly context: {
    contextSize?: number
    batchSize: number
    flashAttention: boolean | 'auto'
    threads?: number
    experimentalKvCacheKeyType: string
    experimentalKvCacheValueType: string
  }
  /** Where the in-process run differs from what llama-server would do with the same flags. */
  readonly notes: string[]
}

/**
 * @param gpu whether the loaded llama.cpp build has a GPU backend (off: GPU layers are moot)
 * @param minContext the prompt plus generated tokens the run needs
 */
export function runtimeOptions(combo: Combo, gpu: boolean, minContext: number): RuntimeOptions {
  const notes: string[] = []
  const get = (id: keyof typeof DEFAULTS) => combo[id] ?? DEFAULTS[id]
  const int = (id: keyof typeof DEFAULTS) => {
    const n = Number(get(id))
    if (!Number.isInteger(n) || n < 0) throw new KerneltuneError('INVALID_INPUT', `${id} must be a whole number, got ${get(id)}`)
    return n
  }
  // node-llama-cpp sets n_ubatch = n_batch (llama/addon/AddonContext.cpp) and queues batches in
  // JavaScript, so the size that shapes the compute is llama.cpp's effective micro-batch.
  const batch = int('batch_size')
  const ubatch = Math.min(batch, int('ubatch_size'))
  notes.push(`batch: node-llama-cpp runs n_batch = n_ubatch = ${ubatch} (llama-server: n_batch ${batch}, n_ubatch ${ubatch}); compute per graph evaluation is the same`)

  const threadsValue = get('threads')
  const threads = threadsValue === 'auto' ? undefined : int('threads')

  const fa = get('flash_attn')
  const flashAttention = fa === 'on' ? true : fa === 'off' ? false : 'auto'

  const kv = (id: 'cache_type_k' | 'cache_type_v') => {
    const name = KV_TYPE_NAMES[get(id)]
    if (!name) throw new KerneltuneError('INVALID_INPUT', `${id} ${get(id)} is not a llama.cpp KV cache type; use one of ${Object.keys(KV_TYPE_NAMES).join(', ')}`)
    return name
  }

  // Refused here, before a model is loaded: llama.cpp refuses this context at any size, and
  // node-llama-cpp leaks the failed context's hold on the model (see adapters/release.ts).
  if (QUANTIZED_KV_TYPES.includes(get('cache_type_v')) && fa === 'off') {
    const rule = LLAMACPP_RULES.find((r) => r.id === 'llamacpp.quantized-v-cache-needs-flash-attn')!
    throw new KerneltuneError(
      'UNSUPPORTED_COMBINATION',
      `llama.cpp refuses cache_type_v=${get('cache_type_v')} with flash_attn=off: ${rule.reason} (${rule.source}); use flash_attn on or auto, or an unquantized V cache`,
      { details: { rule: rule.id } },
    )
  }

  const ctxValue = int('ctx_size')
  if (ctxValue !== 0 && ctxValue < minContext) {
    throw new KerneltuneError('INVALID_INPUT', `ctx_size ${ctxValue} cannot hold the ${minContext} prompt and generated tokens of this run; raise ctx_size or shorten the run`)
  }

  const layers = get('gpu_layers')
  let gpuLayers: number | 'auto' | 'max' = layers === 'auto' ? 'auto' : layers === 'all' ? 'max' : int('gpu_layers')
  if (!gpu) {
    if (layers !== '0' && layers !== 'auto') notes.push(`gpu_layers=${layers} has no effect: this llama.cpp build runs on the CPU`)
    gpuLayers = 0
  }

  const useMmap = get('mmap') !== 'off'
  const useMlock = get('mlock') === 'on'
  if (useMmap && useMlock) notes.push('mmap+mlock: node-llama-cpp loads with mlock alone (no mmap); llama-server would use --load-mode mmap+mlock')

  return {
    model: { gpuLayers, useMmap, useMlock },
    context: {
      ...(ctxValue === 0 ? {} : { contextSize: ctxValue }),
      batchSize: ubatch,
      flashAttention,
      ...(threads === undefined ? {} : { threads }),
      experimentalKvCacheKeyType: kv('cache_type_k'),
      experimentalKvCacheValueType: kv('cache_type_v'),
    },
    notes,
  }
}
