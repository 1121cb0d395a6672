import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES } from '@kerneltune/core'
import { coreCombos, productOf, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
import { llamaServerEngine } from './index.ts'

// The flags and variables this example may emit, written down by hand (a real plugin would load
// them from an inventory file read from the engine's source).
const INVENTORY: EngineInventory = {
  flags: {
    '--model': { type: 'str' },
    '--flash-attn': { choices: ['on', 'off', 'auto'] },
  },
  env: { GGML_CUDA_DISABLE_GRAPHS: { choices: ['1'] } },
}

// llama-server controls two core dimensions; the walk adds their product on its own.
const expressible = productOf({ attention_backend: CORE_DIMENSION_VALUES.attention_backend, cuda_graph: CORE_DIMENSION_VALUES.cuda_graph })

testEngine({
  engine: () => llamaServerEngine(),
  combos: [...coreCombos(), ...expressible],
  inventory: () => INVENTORY,
})

describe('llamaServerEngine', () => {
  const t = (combo: Record<string, string>) => llamaServerEngine().translate(combo, { model: 'm.gguf' })

  it('should switch llama.cpp FlashAttention on or off and refuse the other attention backends', async () => {
    expect(await t({ attention_backend: 'flash_attn_v2' })).toMatchObject({ argv: ['llama-server', '--model', 'm.gguf', '--flash-attn', 'on'] })
    expect(await t({ attention_backend: 'native' })).toMatchObject({ argv: ['llama-server', '--model', 'm.gguf', '--flash-attn', 'off'] })
    expect(await t({ attention_backend: 'flashinfer' })).toMatchObject({ ok: false, dimension: 'attention_backend', value: 'flashinfer' })
  })

  it('should turn CUDA graphs off through the environment and refuse dynamic graphs', async () => {
    expect(await t({ cuda_graph: 'off' })).toMatchObject({ env: { GGML_CUDA_DISABLE_GRAPHS: '1' } })
    expect(await t({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph' })
  })

  it('should leave KV layout, GEMMs, dtype and fusion to llama-server: the neutral value with a note, others refused', async () => {
    const baseline = { kv_layout: 'paged', matmul_path: 'cublas', activation_dtype: 'bf16', fusion_strategy: 'none' }
    const r = await t(baseline)
    expect(r.ok && r.notes.filter((n) => n.includes('left to the engine'))).toHaveLength(4)
    expect(await t({ kv_layout: 'chunked' })).toMatchObject({ ok: false, dimension: 'kv_layout' })
    expect(await t({ matmul_path: 'machete' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(await t({ fusion_strategy: 'aggressive' })).toMatchObject({ ok: false, dimension: 'fusion_strategy' })
  })
})
