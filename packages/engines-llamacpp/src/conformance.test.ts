import { describe, expect, it } from 'vitest'
import type { Combo } from '@kerneltune/core'
import { coreCombos, inventoryProblems, productOf, testEngine } from '@kerneltune/engine-conformance'
import { llamacppInventory, LLAMACPP_BUILDS } from './builds.ts'
import { llamacppEngine } from './engine.ts'
import { LLAMACPP_VERSION } from './facts.ts'
import { LLAMACPP_DIMENSIONS } from './catalog-extension.ts'

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

// The shared conformance suite, with each build's inventory (builds.ts, through the plugin's
// inventory hook). The full core product is mostly refused (llama.cpp has its own kernels), hence
// the defaults and llama.cpp combinations too.
testEngine({
  engine: () => llamacppEngine(),
  combos: [{}, ...coreCombos(), ...extensionCombos, ...singles, ...accepted],
})

describe('llama-server inventory', () => {
  it('should catch a misspelled flag (the check can fail)', () => {
    const bad = { ok: true as const, engine: 'llamacpp', version: LLAMACPP_VERSION, argv: ['llama-server', '--flash-attention', 'on'], env: {}, files: {}, notes: [] }
    expect(inventoryProblems(bad, llamacppInventory(LLAMACPP_VERSION))).toEqual(['flag --flash-attention is not in the inventory'])
  })

  it('should tell the builds apart: --load-mode only from b10114, the old switches only before it', () => {
    const t = (argv: string[]) => ({ ok: true as const, engine: 'llamacpp', version: 'x', argv: ['llama-server', ...argv], env: {}, files: {}, notes: [] })
    expect(inventoryProblems(t(['--load-mode', 'mmap']), llamacppInventory('b6343'))).toEqual(['flag --load-mode is not in the inventory'])
    expect(inventoryProblems(t(['--no-mmap']), llamacppInventory(LLAMACPP_VERSION))).toEqual(['flag --no-mmap is not in the inventory'])
    expect(inventoryProblems(t(['--load-mode', 'mmap+mlock']), llamacppInventory('b10114'))[0]).toMatch(/not one of/)
    expect(LLAMACPP_BUILDS[0]).toBe(LLAMACPP_VERSION)
  })
})
