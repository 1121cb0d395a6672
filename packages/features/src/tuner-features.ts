/**
 * TunerFeatures: trueno's 42-value feature vector (§A.3 of the reference). The object holds the
 * already-normalised values, as upstream's struct does, so `toVector`/`fromVector` are exact
 * inverses and `validate` can see a NaN that was written into a field.
 */
import { KerneltuneError, type BottleneckClassName } from '@kerneltune/core'
import { KERNEL_TYPES, TRUENO_QUANT_TYPES } from './quant.ts'

export const NUM_SCALARS = 11
export const NUM_QUANT = TRUENO_QUANT_TYPES.length
export const NUM_KERNELS = KERNEL_TYPES.length
export const NUM_HARDWARE = 5
export const NUM_DERIVED = 2
/** 11 + 8 + 16 + 5 + 2. */
export const DIM = NUM_SCALARS + NUM_QUANT + NUM_KERNELS + NUM_HARDWARE + NUM_DERIVED

export const QUANT_OFFSET = NUM_SCALARS
export const KERNEL_OFFSET = QUANT_OFFSET + NUM_QUANT
export const HARDWARE_OFFSET = KERNEL_OFFSET + NUM_KERNELS
export const DERIVED_OFFSET = HARDWARE_OFFSET + NUM_HARDWARE

export interface TunerFeatures {
  /** f0: (log10(max(params_b, EPS)) + 1) / 3 */
  modelParamsB: number
  /** f1: hidden / 16384 */
  hiddenDimNorm: number
  /** f2: layers / 128 */
  numLayersNorm: number
  /** f3: heads / 128 */
  numHeadsNorm: number
  /** f4: head_dim / 256 */
  headDimNorm: number
  /** f5: log10(max(vocab, 1)) / 6 */
  vocabSizeLog: number
  /** f6: batch / 64 */
  batchSizeNorm: number
  /** f7: log2(max(seq, 1)) / 15 */
  seqLenLog: number
  /** f8: 0 or 1 */
  cudaGraphs: number
  /** f9: kv_caches / batch */
  kvCacheRatio: number
  /** f10: 0 or 1 */
  isPrefill: number
  /** f11–18, in TRUENO_QUANT_TYPES order; all zero when unset. */
  quantOneHot: number[]
  /** f19–34, in KERNEL_TYPES order; all zero when unset. */
  kernelOneHot: number[]
  /** f35: GB/s / 3000 */
  gpuMemBwNorm: number
  /** f36: TFLOPS / 500 */
  gpuComputeNorm: number
  /** f37: SMs / 200 */
  gpuSmNorm: number
  /** f38: MB / 128 */
  gpuL2CacheNorm: number
  /** f39: 0 or 1 */
  isZeroCopy: number
  /** f40: min(2 / bytes_per_param, 10) / 10 */
  arithmeticIntensity: number
  /** f41: measured / memory-bound roofline; 0 when no measurement. */
  theoreticalEfficiency: number
  /** Labels outside the vector (upstream: Options, skipped by serde when None). */
  measuredTps?: number
  bestKernelId?: number
  bottleneckClass?: BottleneckClassName
}

/** The 42 names, in vector order (snake_case, as upstream names the struct fields). */
export const FEATURE_NAMES: readonly string[] = [
  'model_params_b', 'hidden_dim_norm', 'num_layers_norm', 'num_heads_norm', 'head_dim_norm',
  'vocab_size_log', 'batch_size_norm', 'seq_len_log', 'cuda_graphs', 'kv_cache_ratio', 'is_prefill',
  ...TRUENO_QUANT_TYPES.map((q) => `quant_${q}`),
  ...KERNEL_TYPES.map((k) => `kernel_${k}`),
  'gpu_mem_bw_norm', 'gpu_compute_norm', 'gpu_sm_norm', 'gpu_l2_cache_norm', 'is_zero_copy',
  'arithmetic_intensity', 'theoretical_efficiency',
]

const SCALAR_KEYS = [
  'modelParamsB', 'hiddenDimNorm', 'numLayersNorm', 'numHeadsNorm', 'headDimNorm', 'vocabSizeLog',
  'batchSizeNorm', 'seqLenLog', 'cudaGraphs', 'kvCacheRatio', 'isPrefill',
] as const satisfies readonly (keyof TunerFeatures)[]
const HARDWARE_KEYS = ['gpuMemBwNorm', 'gpuComputeNorm', 'gpuSmNorm', 'gpuL2CacheNorm', 'isZeroCopy'] as const
const DERIVED_KEYS = ['arithmeticIntensity', 'theoreticalEfficiency'] as const

/** The 42 values in §A.3 order. */
export function toVector(f: TunerFeatures): number[] {
  const v: number[] = SCALAR_KEYS.map((k) => f[k])
  for (let i = 0; i < NUM_QUANT; i++) v.push(f.quantOneHot[i] ?? 0)
  for (let i = 0; i < NUM_KERNELS; i++) v.push(f.kernelOneHot[i] ?? 0)
  for (const k of HARDWARE_KEYS) v.push(f[k])
  for (const k of DERIVED_KEYS) v.push(f[k])
  return v
}

/** Rebuilds the features from a 42-value vector (labels are not part of the vector). */
export function fromVector(vector: readonly number[]): TunerFeatures {
  if (vector.length !== DIM) {
    throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: vector has ${vector.length} values, expected ${DIM}`)
  }
  const at = (i: number) => vector[i]!
  const f: Record<string, unknown> = {}
  SCALAR_KEYS.forEach((k, i) => (f[k] = at(i)))
  f.quantOneHot = vector.slice(QUANT_OFFSET, KERNEL_OFFSET)
  f.kernelOneHot = vector.slice(KERNEL_OFFSET, HARDWARE_OFFSET)
  HARDWARE_KEYS.forEach((k, i) => (f[k] = at(HARDWARE_OFFSET + i)))
  DERIVED_KEYS.forEach((k, i) => (f[k] = at(DERIVED_OFFSET + i)))
  return f as unknown as TunerFeatures
}

/** The upstream validation error messages (§A.3), in the order the checks run. */
export const VALIDATION_MESSAGES = {
  nan: 'NaN value in features',
  infinite: 'Infinite value in features',
  range: 'Feature value outside [0, 1]',
  quant: 'Quant one-hot does not sum to 1',
  kernel: 'Kernel one-hot does not sum to 1',
} as const

export type ValidationProblem = keyof typeof VALIDATION_MESSAGES

/**
 * The first problem of a feature vector, or undefined when it is valid. Checks run in upstream
 * order: NaN, infinity, range [-0.001, 1.001], quant one-hot, kernel one-hot. An all-zero one-hot
 * is accepted (it means "unset").
 */
export function findProblem(f: TunerFeatures): ValidationProblem | undefined {
  const v = toVector(f)
  if (v.some((x) => Number.isNaN(x))) return 'nan'
  if (v.some((x) => !Number.isFinite(x))) return 'infinite'
  if (v.some((x) => x < -0.001 || x > 1.001)) return 'range'
  const bad = (xs: readonly number[]) => {
    const sum = xs.reduce((a, b) => a + b, 0)
    return Math.abs(sum - 1) > 0.001 && sum > 0.001
  }
  if (bad(v.slice(QUANT_OFFSET, KERNEL_OFFSET))) return 'quant'
  if (bad(v.slice(KERNEL_OFFSET, HARDWARE_OFFSET))) return 'kernel'
  return undefined
}

/**
 * Throws KerneltuneError INVALID_FEATURE ("Invalid feature: <upstream message>") on the first
 * problem; `details.problem` carries the machine-readable kind.
 */
export function validate(f: TunerFeatures): void {
  const problem = findProblem(f)
  if (problem === undefined) return
  throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: ${VALIDATION_MESSAGES[problem]}`, { details: { problem } })
}

/** Index of the set slot of a one-hot with upstream's `max_by` rule: ties go to the LAST index. */
export function argmaxLast(xs: readonly number[]): number {
  let best = 0
  for (let i = 1; i < xs.length; i++) if (xs[i]! >= xs[best]!) best = i
  return best
}

/** Names and values side by side (for display and JSON). */
export function namedVector(f: TunerFeatures): { index: number; name: string; value: number }[] {
  return toVector(f).map((value, index) => ({ index, name: FEATURE_NAMES[index]!, value }))
}
