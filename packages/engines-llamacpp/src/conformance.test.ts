import { describe, expect, it } from 'vitest'
import type { Combo } from '@kerneltune/core'
import { coreCombos, inventoryProblems, productOf, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { llamacppEngine } from './engine.ts'
import { KV_CACHE_TYPES, LLAMACPP_VERSION } from './facts.ts'
import { LLAMACPP_DIMENSIONS } from './catalog-extension.ts'

/**
 * The llama-server flags and ggml variables this plugin may emit, transcribed by hand from the
 * llama.cpp source node-llama-cpp 3.22.1 bundles (common/arg.cpp `add_opt` entries; getenv calls
 * in ggml/src/ggml-cuda and ggml-vulkan).
 */
const INVENTORY: EngineInventory = {
  flags: {
    '-m': { type: 'str' },
    '--threads': { type: 'int' },
    '--batch-size': { type: 'int' },
    '--ubatch-size': { type: 'int' },
    '--flash-attn': { choices: ['on', 'off', 'auto'] },
    '--cache-type-k': { choices: KV_CACHE_TYPES },
    '--cache-type-v': { choices: KV_CACHE_TYPES },
    // A number, 'auto' or 'all' (arg.cpp: n_gpu_layers -1 = auto, -2 = all).
    '--n-gpu-layers': {},
    '--ctx-size': { type: 'int' },
    '--load-mode': { choices: ['auto', 'none', 'mmap', 'mlock', 'mmap+mlock', 'dio'] },
    '--host': { type: 'str' },
    '--port': { type: 'int' },
  },
  env: {
    GGML_CUDA_DISABLE_GRAPHS: {},
    GGML_CUDA_DISABLE_FUSION: { type: 'int' },
    GGML_VK_DISABLE_FUSION: {},
    GGML_CUDA_CUBLAS_COMPUTE_TYPE: { choices: ['f32', 'fp32', 'f16', 'fp16', 'bf16', 'auto'] },
  },
  check: (t) => {
    const i = t.argv.indexOf('--n-gpu-layers')
    const v = i >= 0 ? t.argv[i + 1]! : 'auto'
    return /^(\d+|auto|all)$/.test(v) ? [] : [`--n-gpu-layers ${v} is not a number, auto or all`]
  },
}

// Every value of every llama.cpp dimension on its own, plus the core values llama.cpp accepts.
const singles: Combo[] = LLAMACPP_DIMENSIONS.flatMap((d) => d.values.map((v) => ({ [d.id]: v.id })))
const accepted: Combo[] = [
  { cuda_graph: 'off' }, { fusion_strategy: 'none' }, { activation_dtype: 'fp16' }, { activation_dtype: 'bf16' },
  { attention_backend: 'native', kv_layout: 'contiguous', fusion_strategy: 'conservative', cuda_graph: 'per-shape' },
]

const extensionCombos = productOf({
  flash_attn: ['auto', 'on', 'off'],
  cache_type_k: ['f16', 'q8_0'],
  cache_type_v: ['f16', 'q4_0'],
  batch_size: ['256', '2048'],
  mmap: ['on', 'off'],
  mlock: ['on', 'off'],
})

// The shared conformance suite, with the inventory check on. The full core product is mostly
// refused (llama.cpp has its own kernels), hence the defaults and llama.cpp combinations too.
testEngine({
  engine: () => llamacppEngine(),
  combos: [{}, ...coreCombos(), ...extensionCombos, ...singles, ...accepted],
  inventory: (version) => (version === LLAMACPP_VERSION ? INVENTORY : undefined),
})

describe('llama-server inventory', () => {
  it('should catch a misspelled flag (the check can fail)', () => {
    const bad = { ok: true as const, engine: 'llamacpp', version: LLAMACPP_VERSION, argv: ['llama-server', '--flash-attention', 'on'], env: {}, files: {}, notes: [] }
    expect(inventoryProblems(bad, INVENTORY)).toEqual(['flag --flash-attention is not in the inventory'])
  })
})
