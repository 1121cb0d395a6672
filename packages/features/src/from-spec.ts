/**
 * Features from kerneltune's domain types (ModelSpec, HardwareSpec, Workload), and `fromEnv`,
 * which upstream documents (`TunerFeatures::from_env()`) but never implemented.
 */
import {
  KerneltuneError,
  parseWith,
  WorkloadSchema,
  type HardwareSpec,
  type KernelTypeName,
  type ModelSpec,
  type WorkloadInput,
} from '@kerneltune/core'
import { featuresBuilder, type TunerFeaturesBuilder } from './builder.ts'
import { requireHardwarePreset } from './hardware/presets.ts'
import { modelSpecFromPreset } from './model/presets.ts'
import { GGUF_TO_TRUENO } from './quant.ts'
import type { TunerFeatures } from './tuner-features.ts'

export interface FeatureSources {
  model: ModelSpec
  hardware?: HardwareSpec
  workload?: WorkloadInput
  kernel?: KernelTypeName
}

/**
 * A builder pre-filled from the specs. Choices (see README):
 * - f0 uses the parameters read per token: `activeParamsB` for mixture-of-experts, else `paramsB`.
 * - head_dim falls back to hidden / heads; f7 (seq_len) is the prompt length for prefill and the
 *   KV context length for decode (`contextLength`, else the prompt length).
 * - the quantization goes to its trueno slot (GGUF_TO_TRUENO); unified memory sets is_zero_copy.
 */
export function builderFrom(src: FeatureSources): TunerFeaturesBuilder {
  const w = parseWith(WorkloadSchema, src.workload ?? {}, 'workload')
  const m = src.model
  const b = featuresBuilder()
    .modelParamsB(m.activeParamsB ?? m.paramsB)
    .batchSize(w.batch)
    .seqLen(w.phase === 'prefill' ? w.promptTokens : (w.contextLength ?? w.promptTokens))
    .cudaGraphs(w.cudaGraphs)
    .isPrefill(w.phase === 'prefill')
    .quantType(GGUF_TO_TRUENO[m.quant])
  if (m.hiddenDim !== undefined) b.hiddenDim(m.hiddenDim)
  if (m.numLayers !== undefined) b.numLayers(m.numLayers)
  if (m.numHeads !== undefined) b.numHeads(m.numHeads)
  const headDim = m.headDim ?? (m.hiddenDim && m.numHeads ? m.hiddenDim / m.numHeads : undefined)
  if (headDim !== undefined) b.headDim(headDim)
  if (m.vocabSize !== undefined) b.vocabSize(m.vocabSize)
  if (src.hardware) b.hardware(src.hardware)
  if (src.kernel) b.kernelType(src.kernel)
  return b
}

/** `featuresFrom({ model, hardware, workload })`: the 42-value features of a configuration. */
export function featuresFrom(src: FeatureSources): TunerFeatures {
  return builderFrom(src).build()
}

/** The environment variables `fromEnv` reads. */
export const ENV_VARS = {
  KERNELTUNE_MODEL: 'model preset id (e.g. llama-3-8b)',
  KERNELTUNE_PARAMS_B: 'model size in billions (used when no preset is named)',
  KERNELTUNE_QUANT: 'quantization, GGUF spelling (Q4_K) or upstream (Q4K); default Q4_K',
  KERNELTUNE_HARDWARE: 'hardware preset id (e.g. h100-sxm)',
  KERNELTUNE_BATCH: 'batch size (default 1)',
  KERNELTUNE_SEQ_LEN: 'sequence length / context length',
  KERNELTUNE_CUDA_GRAPHS: '1/true to mark CUDA graphs on',
  KERNELTUNE_PREFILL: '1/true for the prefill phase',
} as const

/**
 * Builds features from KERNELTUNE_* variables (pass `process.env` or any record). Unset
 * variables leave the builder defaults. Bad values throw INVALID_INPUT naming the variable.
 */
export function fromEnv(env: Readonly<Record<string, string | undefined>>): TunerFeatures {
  const number = (name: keyof typeof ENV_VARS): number | undefined => {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    const n = Number(raw)
    if (!Number.isFinite(n) || n < 0) throw new KerneltuneError('INVALID_INPUT', `${name} must be a non-negative number, got "${raw}"`)
    return n
  }
  const flag = (name: keyof typeof ENV_VARS) => /^(1|true|yes|on)$/i.test(env[name] ?? '')
  const quant = env.KERNELTUNE_QUANT || 'Q4_K'
  const phase = flag('KERNELTUNE_PREFILL') ? 'prefill' : 'decode'
  const seq = number('KERNELTUNE_SEQ_LEN')
  const workload: WorkloadInput = { batch: number('KERNELTUNE_BATCH') ?? 1, phase, cudaGraphs: flag('KERNELTUNE_CUDA_GRAPHS') }
  if (seq !== undefined) Object.assign(workload, phase === 'prefill' ? { promptTokens: Math.max(1, seq) } : { contextLength: seq })
  const hardware = env.KERNELTUNE_HARDWARE ? requireHardwarePreset(env.KERNELTUNE_HARDWARE) : undefined
  if (env.KERNELTUNE_MODEL) {
    return featuresFrom({ model: modelSpecFromPreset(env.KERNELTUNE_MODEL, quant), hardware, workload })
  }
  const b = featuresBuilder().quantType(quant).batchSize(workload.batch ?? 1).cudaGraphs(workload.cudaGraphs ?? false).isPrefill(phase === 'prefill')
  const params = number('KERNELTUNE_PARAMS_B')
  if (params !== undefined) b.modelParamsB(params)
  if (seq !== undefined) b.seqLen(seq)
  if (hardware) b.hardware(hardware)
  return b.build()
}

/** Upstream's RunConfig (features/extractor.rs), with its defaults. */
export interface RunConfig {
  modelParamsB: number
  hiddenDim: number
  numLayers: number
  numHeads: number
  batchSize: number
  seqLen: number
  cudaGraphs: boolean
  quant: string
  kernel: KernelTypeName
}

export const DEFAULT_RUN_CONFIG: Readonly<RunConfig> = {
  modelParamsB: 1.5, hiddenDim: 1536, numLayers: 28, numHeads: 12, batchSize: 1, seqLen: 1,
  cudaGraphs: false, quant: 'Q4K', kernel: 'VectorizedQ4K',
}

/** Features of a RunConfig (missing fields take DEFAULT_RUN_CONFIG's values). */
export function featuresFromRunConfig(rc: Partial<RunConfig> = {}, hardware?: HardwareSpec): TunerFeatures {
  const c = { ...DEFAULT_RUN_CONFIG, ...rc }
  const b = featuresBuilder().modelParamsB(c.modelParamsB).hiddenDim(c.hiddenDim).numLayers(c.numLayers).numHeads(c.numHeads)
    .batchSize(c.batchSize).seqLen(c.seqLen).cudaGraphs(c.cudaGraphs).quantType(c.quant).kernelType(c.kernel)
  if (hardware) b.hardware(hardware)
  return b.build()
}
