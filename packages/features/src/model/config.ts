/**
 * `fromModelConfig`: a Hugging Face `config.json` → ModelSpec, with parameters counted from the
 * shapes (total and, for mixture-of-experts, active per token). Families: Llama, Mistral,
 * Mixtral, Qwen2/2.5 (+MoE), Qwen3 (+MoE), Gemma 1/2/3, Phi-2, Phi-3 (+PhiMoE). Multimodal
 * configs are read through their `text_config`.
 */
import { KerneltuneError, type ModelSpec, type QuantName } from '@kerneltune/core'
import { countParams, type TransformerShape } from './param-count.ts'

type Json = Record<string, unknown>

export const SUPPORTED_MODEL_TYPES = [
  'llama', 'mistral', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe',
  'gemma', 'gemma2', 'gemma3', 'gemma3_text', 'phi', 'phi3', 'phimoe',
] as const

export interface ModelFromConfig {
  model: ModelSpec
  shape: TransformerShape
  /** Where a value was assumed because the config did not state it. */
  assumptions: string[]
}

const num = (c: Json, ...keys: string[]): number | undefined => {
  for (const k of keys) {
    const v = c[k]
    if (typeof v === 'number' && Number.isFinite(v)) return v
  }
  return undefined
}

function need(c: Json, what: string, ...keys: string[]): number {
  const v = num(c, ...keys)
  if (v === undefined || v <= 0) {
    throw new KerneltuneError('INVALID_INPUT', `config.json: missing or invalid ${keys.join(' / ')} (${what})`)
  }
  return v
}

/** torch_dtype / quantization_config → weight format. */
function quantOf(c: Json, assumptions: string[]): QuantName {
  const qc = c.quantization_config as Json | undefined
  if (qc && typeof qc === 'object') {
    const method = String(qc.quant_method ?? '').toLowerCase()
    const bits = num(qc, 'bits', 'w_bit')
    if (method === 'fp8' || method === 'compressed-tensors') return 'FP8_E4M3'
    if (bits === 8) return 'Q8_0'
    if (bits === 4) {
      assumptions.push(`${method || 'quantization_config'} 4-bit read as Q4_1 (4-bit groups with scale and zero point)`)
      return 'Q4_1'
    }
  }
  const dtype = String(c.torch_dtype ?? c.dtype ?? '').toLowerCase()
  if (dtype === 'bfloat16') return 'BF16'
  if (dtype === 'float32') return 'F32'
  if (dtype !== 'float16') assumptions.push('no torch_dtype: weights taken as F16')
  return 'F16'
}

export function shapeFromConfig(raw: Json, assumptions: string[] = []): TransformerShape {
  const c = (raw.text_config && typeof raw.text_config === 'object' ? { ...raw, ...(raw.text_config as Json) } : raw) as Json
  const type = String(c.model_type ?? raw.model_type ?? '').toLowerCase()
  if (!(SUPPORTED_MODEL_TYPES as readonly string[]).includes(type)) {
    if (!type) assumptions.push('no model_type: read as a Llama-style decoder')
    else assumptions.push(`model_type "${type}" is not one of ${SUPPORTED_MODEL_TYPES.join(', ')}; read as a Llama-style decoder`)
  }
  const hidden = need(c, 'hidden size', 'hidden_size', 'n_embd', 'd_model')
  const heads = need(c, 'attention heads', 'num_attention_heads', 'n_head')
  const family = type.replace(/_text$/, '')
  const isGemma = family.startsWith('gemma')
  const isPhi2 = family === 'phi'
  const experts = num(c, 'num_local_experts', 'num_experts', 'n_routed_experts')
  const shape: TransformerShape = {
    architecture: type || 'llama',
    hiddenDim: hidden,
    intermediateDim: need(c, 'MLP width', 'intermediate_size', 'n_inner', 'ffn_dim'),
    numLayers: need(c, 'layer count', 'num_hidden_layers', 'n_layer'),
    numHeads: heads,
    numKvHeads: num(c, 'num_key_value_heads') ?? heads,
    headDim: num(c, 'head_dim') ?? hidden / heads,
    vocabSize: need(c, 'vocabulary size', 'vocab_size'),
    contextLength: num(c, 'max_position_embeddings', 'n_positions', 'seq_length'),
    // HF defaults differ by family: Gemma ties by default, the others (and Phi-2) do not.
    tieEmbeddings: typeof c.tie_word_embeddings === 'boolean' ? c.tie_word_embeddings : isGemma,
    gatedMlp: !isPhi2,
    qkvBias: family === 'qwen2' || family === 'qwen2_moe' || c.attention_bias === true,
    allLinearBias: isPhi2,
    normBias: isPhi2,
    normsPerLayer: isPhi2 ? 1 : family === 'gemma2' || family === 'gemma3' ? 4 : 2,
    qkNorm: family === 'qwen3' || family === 'qwen3_moe' || family === 'gemma3',
  }
  if (experts !== undefined && experts > 1) {
    shape.numExperts = experts
    shape.expertsPerToken = num(c, 'num_experts_per_tok', 'num_experts_per_token', 'top_k') ?? 2
    const moeInter = num(c, 'moe_intermediate_size')
    if (moeInter !== undefined) shape.expertIntermediateDim = moeInter
    const shared = num(c, 'shared_expert_intermediate_size')
    if (shared !== undefined && shared > 0) shape.sharedExpertIntermediateDim = shared
  }
  return shape
}

/** ModelSpec from a shape (parameters counted from it). */
export function modelFromShape(shape: TransformerShape, quant: QuantName, name?: string): ModelSpec {
  const p = countParams(shape)
  const spec: ModelSpec = {
    architecture: shape.architecture,
    paramsB: p.total / 1e9,
    hiddenDim: shape.hiddenDim,
    intermediateDim: shape.intermediateDim,
    numLayers: shape.numLayers,
    numHeads: shape.numHeads,
    numKvHeads: shape.numKvHeads,
    headDim: shape.headDim,
    vocabSize: shape.vocabSize,
    tieEmbeddings: shape.tieEmbeddings,
    quant,
  }
  if (name !== undefined) spec.name = name
  if (shape.contextLength !== undefined) spec.contextLength = shape.contextLength
  if (shape.numExperts !== undefined) {
    spec.numExperts = shape.numExperts
    spec.expertsPerToken = shape.expertsPerToken ?? 2
    spec.activeParamsB = p.active / 1e9
  }
  return spec
}

/** A Hugging Face config.json (already parsed) → ModelSpec. */
export function fromModelConfig(json: unknown, options: { name?: string; quant?: QuantName } = {}): ModelFromConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new KerneltuneError('INVALID_INPUT', 'config.json must be a JSON object')
  }
  const c = json as Json
  const assumptions: string[] = []
  const shape = shapeFromConfig(c, assumptions)
  const merged = c.text_config && typeof c.text_config === 'object' ? { ...(c.text_config as Json), ...c } : c
  const quant = options.quant ?? quantOf(merged, assumptions)
  const name = options.name ?? (typeof c._name_or_path === 'string' ? c._name_or_path : undefined)
  return { model: modelFromShape(shape, quant, name), shape, assumptions }
}
