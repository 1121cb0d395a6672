import { describe, expect, it } from 'vitest'
import { coreCombos, testEngine, type EngineInventory } from '@kerneltune/engine-conformance'
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

// llama-server refuses whole dimensions (matmul_path, fusion_strategy), so every full combination
// is refused; the walk adds the combinations of the dimensions it can express.
const expressible = coreCombos()
  .map(({ attention_backend, kv_layout, cuda_graph }) => ({ attention_backend: attention_backend!, kv_layout: kv_layout!, cuda_graph: cuda_graph! }))
  .filter((c, i, all) => all.findIndex((d) => JSON.stringify(d) === JSON.stringify(c)) === i)

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

  it('should refuse paged KV caches and every matmul path and fusion strategy', async () => {
    expect(await t({ kv_layout: 'contiguous' })).toMatchObject({ ok: true })
    expect(await t({ kv_layout: 'paged' })).toMatchObject({ ok: false, dimension: 'kv_layout' })
    expect(await t({ matmul_path: 'cublas' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(await t({ fusion_strategy: 'none' })).toMatchObject({ ok: false, dimension: 'fusion_strategy' })
  })
})
