/**
 * Model presets with the shapes of their published config.json files (Hugging Face model
 * cards). Sizes are counted from the shapes, not typed in, so they agree with fromModelConfig.
 */
import { KerneltuneError, normalizeQuantName, type ModelSpec, type QuantName } from '@kerneltune/core'
import { modelFromShape } from './config.ts'
import type { TransformerShape } from './param-count.ts'

export interface ModelPreset {
  id: string
  name: string
  /** The Hugging Face repository whose config.json the shape comes from. */
  source: string
  shape: TransformerShape
}

type ShapeIn = Omit<TransformerShape, 'gatedMlp' | 'headDim'> & { gatedMlp?: boolean; headDim?: number }
const p = (id: string, name: string, source: string, s: ShapeIn): ModelPreset => ({
  id, name, source: `huggingface.co/${source}`,
  shape: { gatedMlp: true, headDim: s.hiddenDim / s.numHeads, ...s },
})
const LLAMA2 = { architecture: 'llama', vocabSize: 32000, contextLength: 4096, tieEmbeddings: false }
const LLAMA3 = { architecture: 'llama', vocabSize: 128256, tieEmbeddings: false }

export const MODEL_PRESETS: readonly ModelPreset[] = [
  p('llama-2-7b', 'Llama 2 7B', 'meta-llama/Llama-2-7b-hf', { ...LLAMA2, hiddenDim: 4096, intermediateDim: 11008, numLayers: 32, numHeads: 32, numKvHeads: 32 }),
  p('llama-2-13b', 'Llama 2 13B', 'meta-llama/Llama-2-13b-hf', { ...LLAMA2, hiddenDim: 5120, intermediateDim: 13824, numLayers: 40, numHeads: 40, numKvHeads: 40 }),
  p('llama-2-70b', 'Llama 2 70B', 'meta-llama/Llama-2-70b-hf', { ...LLAMA2, hiddenDim: 8192, intermediateDim: 28672, numLayers: 80, numHeads: 64, numKvHeads: 8 }),
  p('llama-3-8b', 'Llama 3 8B', 'meta-llama/Meta-Llama-3-8B', { ...LLAMA3, contextLength: 8192, hiddenDim: 4096, intermediateDim: 14336, numLayers: 32, numHeads: 32, numKvHeads: 8 }),
  p('llama-3-70b', 'Llama 3 70B', 'meta-llama/Meta-Llama-3-70B', { ...LLAMA3, contextLength: 8192, hiddenDim: 8192, intermediateDim: 28672, numLayers: 80, numHeads: 64, numKvHeads: 8 }),
  p('llama-3.1-8b', 'Llama 3.1 8B', 'meta-llama/Llama-3.1-8B', { ...LLAMA3, contextLength: 131072, hiddenDim: 4096, intermediateDim: 14336, numLayers: 32, numHeads: 32, numKvHeads: 8 }),
  p('llama-3.1-70b', 'Llama 3.1 70B', 'meta-llama/Llama-3.1-70B', { ...LLAMA3, contextLength: 131072, hiddenDim: 8192, intermediateDim: 28672, numLayers: 80, numHeads: 64, numKvHeads: 8 }),
  p('llama-3.2-1b', 'Llama 3.2 1B', 'meta-llama/Llama-3.2-1B', { ...LLAMA3, contextLength: 131072, tieEmbeddings: true, hiddenDim: 2048, intermediateDim: 8192, numLayers: 16, numHeads: 32, numKvHeads: 8, headDim: 64 }),
  p('llama-3.2-3b', 'Llama 3.2 3B', 'meta-llama/Llama-3.2-3B', { ...LLAMA3, contextLength: 131072, tieEmbeddings: true, hiddenDim: 3072, intermediateDim: 8192, numLayers: 28, numHeads: 24, numKvHeads: 8, headDim: 128 }),
  p('mistral-7b', 'Mistral 7B v0.1', 'mistralai/Mistral-7B-v0.1', { architecture: 'mistral', vocabSize: 32000, contextLength: 32768, tieEmbeddings: false, hiddenDim: 4096, intermediateDim: 14336, numLayers: 32, numHeads: 32, numKvHeads: 8 }),
  p('mixtral-8x7b', 'Mixtral 8x7B v0.1', 'mistralai/Mixtral-8x7B-v0.1', { architecture: 'mixtral', vocabSize: 32000, contextLength: 32768, tieEmbeddings: false, hiddenDim: 4096, intermediateDim: 14336, numLayers: 32, numHeads: 32, numKvHeads: 8, numExperts: 8, expertsPerToken: 2 }),
  p('qwen2.5-0.5b', 'Qwen2.5 0.5B', 'Qwen/Qwen2.5-0.5B', { architecture: 'qwen2', vocabSize: 151936, contextLength: 32768, tieEmbeddings: true, qkvBias: true, hiddenDim: 896, intermediateDim: 4864, numLayers: 24, numHeads: 14, numKvHeads: 2 }),
  p('qwen2.5-1.5b', 'Qwen2.5 1.5B', 'Qwen/Qwen2.5-1.5B', { architecture: 'qwen2', vocabSize: 151936, contextLength: 131072, tieEmbeddings: true, qkvBias: true, hiddenDim: 1536, intermediateDim: 8960, numLayers: 28, numHeads: 12, numKvHeads: 2 }),
  p('qwen2.5-7b', 'Qwen2.5 7B', 'Qwen/Qwen2.5-7B', { architecture: 'qwen2', vocabSize: 152064, contextLength: 131072, tieEmbeddings: false, qkvBias: true, hiddenDim: 3584, intermediateDim: 18944, numLayers: 28, numHeads: 28, numKvHeads: 4 }),
  p('qwen2.5-14b', 'Qwen2.5 14B', 'Qwen/Qwen2.5-14B', { architecture: 'qwen2', vocabSize: 152064, contextLength: 131072, tieEmbeddings: false, qkvBias: true, hiddenDim: 5120, intermediateDim: 13824, numLayers: 48, numHeads: 40, numKvHeads: 8 }),
  p('qwen2.5-72b', 'Qwen2.5 72B', 'Qwen/Qwen2.5-72B', { architecture: 'qwen2', vocabSize: 152064, contextLength: 131072, tieEmbeddings: false, qkvBias: true, hiddenDim: 8192, intermediateDim: 29568, numLayers: 80, numHeads: 64, numKvHeads: 8 }),
  p('gemma-7b', 'Gemma 7B', 'google/gemma-7b', { architecture: 'gemma', vocabSize: 256000, contextLength: 8192, tieEmbeddings: true, hiddenDim: 3072, intermediateDim: 24576, numLayers: 28, numHeads: 16, numKvHeads: 16, headDim: 256 }),
  p('gemma-2-9b', 'Gemma 2 9B', 'google/gemma-2-9b', { architecture: 'gemma2', vocabSize: 256000, contextLength: 8192, tieEmbeddings: true, normsPerLayer: 4, hiddenDim: 3584, intermediateDim: 14336, numLayers: 42, numHeads: 16, numKvHeads: 8, headDim: 256 }),
  p('phi-2', 'Phi-2', 'microsoft/phi-2', { architecture: 'phi', vocabSize: 51200, contextLength: 2048, tieEmbeddings: false, gatedMlp: false, allLinearBias: true, normBias: true, normsPerLayer: 1, hiddenDim: 2560, intermediateDim: 10240, numLayers: 32, numHeads: 32, numKvHeads: 32 }),
  p('phi-3-mini', 'Phi-3 mini 4k', 'microsoft/Phi-3-mini-4k-instruct', { architecture: 'phi3', vocabSize: 32064, contextLength: 4096, tieEmbeddings: false, hiddenDim: 3072, intermediateDim: 8192, numLayers: 32, numHeads: 32, numKvHeads: 32 }),
]

const BY_ID = new Map(MODEL_PRESETS.map((m) => [m.id, m]))

export function getModelPreset(id: string): ModelPreset | undefined {
  return BY_ID.get(id.toLowerCase())
}

export function listModelPresets(): ModelPreset[] {
  return [...MODEL_PRESETS]
}

/** A ModelSpec for a preset at a quantization (any spelling; default Q4_K). */
export function modelSpecFromPreset(id: string, quant: string = 'Q4_K'): ModelSpec {
  const preset = getModelPreset(id)
  if (!preset) {
    throw new KerneltuneError('NOT_FOUND', `unknown model "${id}"; accepted: ${MODEL_PRESETS.map((m) => m.id).join(', ')}`)
  }
  const q: QuantName | undefined = normalizeQuantName(quant)
  if (!q) throw new KerneltuneError('INVALID_INPUT', `unknown quantization "${quant}"`)
  return modelFromShape(preset.shape, q, preset.name)
}
