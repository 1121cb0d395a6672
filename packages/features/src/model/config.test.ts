import { describe, expect, it } from 'vitest'
import { countParams } from './param-count.ts'
import { fromModelConfig } from './config.ts'
import { MODEL_PRESETS, getModelPreset, modelSpecFromPreset } from './presets.ts'

// Fields as in the published config.json files on the Hugging Face Hub.
const LLAMA3_8B = { model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 128256, max_position_embeddings: 8192, tie_word_embeddings: false, torch_dtype: 'bfloat16' }
const MIXTRAL = { model_type: 'mixtral', hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000, max_position_embeddings: 32768, num_local_experts: 8, num_experts_per_tok: 2, torch_dtype: 'bfloat16' }
const QWEN25_7B = { model_type: 'qwen2', hidden_size: 3584, intermediate_size: 18944, num_hidden_layers: 28, num_attention_heads: 28, num_key_value_heads: 4, vocab_size: 152064, tie_word_embeddings: false, torch_dtype: 'bfloat16' }
const GEMMA_7B = { model_type: 'gemma', hidden_size: 3072, intermediate_size: 24576, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 16, head_dim: 256, vocab_size: 256000, torch_dtype: 'bfloat16' }
const PHI2 = { model_type: 'phi', hidden_size: 2560, intermediate_size: 10240, num_hidden_layers: 32, num_attention_heads: 32, vocab_size: 51200, torch_dtype: 'float16' }
const PHI3 = { model_type: 'phi3', hidden_size: 3072, intermediate_size: 8192, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, vocab_size: 32064, tie_word_embeddings: false, torch_dtype: 'bfloat16' }
const MISTRAL = { model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000, torch_dtype: 'bfloat16' }

describe('fromModelConfig', () => {
  it.each([
    ['Llama 3 8B', LLAMA3_8B, 8.03], ['Qwen2.5 7B', QWEN25_7B, 7.62], ['Gemma 7B', GEMMA_7B, 8.54],
    ['Phi-2', PHI2, 2.78], ['Phi-3 mini', PHI3, 3.82], ['Mistral 7B', MISTRAL, 7.24],
  ])('should count the parameters of %s from its shapes', (_name, cfg, billions) => {
    const { model } = fromModelConfig(cfg)
    expect(model.paramsB).toBeCloseTo(billions, 2)
    expect(model.activeParamsB).toBeUndefined()
  })

  it('should count Mixtral total and active parameters separately', () => {
    const { model } = fromModelConfig(MIXTRAL)
    expect(model.paramsB).toBeCloseTo(46.7, 1)
    expect(model.activeParamsB).toBeCloseTo(12.88, 2)
    expect(model).toMatchObject({ numExperts: 8, expertsPerToken: 2, quant: 'BF16', numKvHeads: 8, headDim: 128 })
  })

  it('should read dtype, defaults and nested text_config', () => {
    expect(fromModelConfig(PHI2).model.quant).toBe('F16')
    expect(fromModelConfig(GEMMA_7B).model.tieEmbeddings).toBe(true)
    expect(fromModelConfig({ ...MISTRAL, quantization_config: { quant_method: 'fp8' } }).model.quant).toBe('FP8_E4M3')
    const nested = fromModelConfig({ model_type: 'llava', text_config: LLAMA3_8B })
    expect(nested.model.paramsB).toBeCloseTo(8.03, 2)
    expect(nested.model).toMatchObject({ architecture: 'llama', quant: 'BF16' })
    expect(fromModelConfig({ ...LLAMA3_8B, model_type: 'falcon9' }).assumptions.join(' ')).toContain('Llama-style')
  })

  it('should name the missing field on a bad config', () => {
    expect(() => fromModelConfig({ model_type: 'llama', hidden_size: 4096 })).toThrow(/num_attention_heads/)
    expect(() => fromModelConfig([])).toThrow(/JSON object/)
  })
})

describe('MODEL_PRESETS', () => {
  it('should give published sizes for the presets', () => {
    const expected: Record<string, number> = { 'llama-2-7b': 6.74, 'llama-2-13b': 13.02, 'llama-2-70b': 68.98, 'llama-3-8b': 8.03, 'llama-3-70b': 70.55, 'qwen2.5-7b': 7.62, 'qwen2.5-0.5b': 0.49, 'mistral-7b': 7.24 }
    for (const [id, b] of Object.entries(expected)) expect([id, Number(modelSpecFromPreset(id).paramsB.toFixed(2))]).toEqual([id, b])
    for (const p of MODEL_PRESETS) expect(countParams(p.shape).total).toBeGreaterThan(0)
  })

  it('should apply the quantization and reject unknown ids', () => {
    expect(modelSpecFromPreset('llama-3-8b', 'Q4K').quant).toBe('Q4_K')
    expect(getModelPreset('LLAMA-3-8B')?.id).toBe('llama-3-8b')
    expect(() => modelSpecFromPreset('llama-9')).toThrow(/accepted: llama-2-7b/)
  })
})
