/**
 * @module @kerneltune/gpu-kernels
 * WGSL compute kernels for quantised LLM matrix products (decode gemv, prefill gemm) over
 * q4_0, q8_0 and f16 weights: parameter spaces with validity constraints, WGSL generation, a CPU
 * reference, and WebGPU timing against a copy-bandwidth ceiling.
 */
export type {
  WeightFormat,
  KernelKind,
  MatmulProblem,
  MatmulConfig,
  DeviceLimits,
  GeneratedWgsl,
  TimingOptions,
  LatencyStats,
  KernelBenchResult,
  CopyBandwidth,
} from './types.ts'
export { WEIGHT_FORMATS, KERNEL_KINDS, DEFAULT_LIMITS } from './types.ts'
