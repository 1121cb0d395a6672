/**
 * Parameter counts from transformer shapes, so that presets, config.json and GGUF metadata all
 * give sizes the same way. Counts embeddings, attention (with GQA), the MLP (gated or plain, dense
 * or mixture-of-experts with an optional shared expert), norms, biases and an untied LM head.
 */

export interface TransformerShape {
  architecture: string
  hiddenDim: number
  /** Dense MLP width (per expert for MoE unless `expertIntermediateDim` is given). */
  intermediateDim: number
  numLayers: number
  numHeads: number
  numKvHeads: number
  headDim: number
  vocabSize: number
  contextLength?: number
  tieEmbeddings: boolean
  /** Gated MLPs (SwiGLU/GeGLU) have three matrices, plain ones two. */
  gatedMlp: boolean
  /** Bias on the Q/K/V projections (Qwen2), or on every linear layer (Phi-2). */
  qkvBias?: boolean
  allLinearBias?: boolean
  /** Layer norms with bias (LayerNorm) instead of RMSNorm. */
  normBias?: boolean
  /** Norm vectors of width `hiddenDim` per layer (2 for Llama, 4 for Gemma 2/3, 1 for Phi-2). */
  normsPerLayer?: number
  /** Per-head Q/K norms (Qwen3, Gemma 3). */
  qkNorm?: boolean
  numExperts?: number
  expertsPerToken?: number
  expertIntermediateDim?: number
  sharedExpertIntermediateDim?: number
}

export interface ParamCount {
  total: number
  /** Parameters touched per token: for MoE, only `expertsPerToken` experts. */
  active: number
  /** Parameters of one routed expert across all layers (0 for dense models). */
  perExpert: number
  embedding: number
}

export function countParams(s: TransformerShape): ParamCount {
  const h = s.hiddenDim
  const qDim = s.numHeads * s.headDim
  const kvDim = s.numKvHeads * s.headDim
  let attn = h * qDim + 2 * h * kvDim + qDim * h
  if (s.qkvBias || s.allLinearBias) attn += qDim + 2 * kvDim
  if (s.allLinearBias) attn += h
  if (s.qkNorm) attn += 2 * s.headDim
  const mlp = (inter: number) => (s.gatedMlp ? 3 : 2) * h * inter + (s.allLinearBias ? inter + h : 0)
  const normWidth = s.normBias ? 2 * h : h
  const norms = (s.normsPerLayer ?? 2) * normWidth
  const experts = s.numExperts ?? 0
  let dense = 0
  let expert = 0
  let router = 0
  if (experts > 1) {
    expert = mlp(s.expertIntermediateDim ?? s.intermediateDim)
    router = h * experts
    if (s.sharedExpertIntermediateDim) dense = mlp(s.sharedExpertIntermediateDim) + h // shared expert + its gate
  } else {
    dense = mlp(s.intermediateDim)
  }
  const k = Math.min(s.expertsPerToken ?? experts, experts)
  const layerShared = attn + norms + dense + router
  const embedding = s.vocabSize * h
  const head = s.tieEmbeddings ? 0 : s.vocabSize * h + (s.allLinearBias ? s.vocabSize : 0)
  const outside = embedding + head + normWidth
  const total = outside + s.numLayers * (layerShared + experts * expert)
  const active = outside + s.numLayers * (layerShared + (experts > 1 ? k : 0) * expert)
  return { total, active, perExpert: s.numLayers * expert, embedding }
}
