/**
 * @module @kerneltune/gpu-kernels
 * WGSL compute kernels for quantised LLM matrix products (decode gemv, prefill gemm) over
 * q4_0, q8_0, q2_0, q3_0 and f16 weights: parameter spaces with validity constraints, WGSL
 * generation, a CPU reference, and WebGPU timing against a copy-bandwidth ceiling.
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
export { DEFAULT_SIZES, parseProblemSize, type ProblemSize } from './problem-size.ts'
export { kernelParameters, isValidConfig, enumerateConfigs, defaultConfig, dispatchSize, workgroupShape, sharedBytes, configKey } from './params.ts'
export { generateWgsl } from './codegen.ts'
// The building blocks of the kernels, for generators of structural variants (@kerneltune/kernel-lab).
export { bindings, blockDotWgsl, weightReader } from './wgsl-common.ts'
export { gemvWgsl, type GemvShape } from './wgsl-gemv.ts'
export { referenceMatmul, referenceWithBounds, compareWithReference, makeProblemData, checkProblem, seededRandom, verificationRows, FULL_REFERENCE_MACS } from './reference.ts'
export type { ReferenceResult } from './reference.ts'
export { BLOCK, blockBytes, weightBytes, quantizeRow, dequantizeRow, toGpuLayout, toF16Bits, fromF16Bits } from './formats.ts'
export type { GpuWeights } from './formats.ts'
export { openGpu, closeGpu, onCloseGpu, runtimeGpu, deviceName } from './gpu.ts'
export type { GpuContext } from './gpu.ts'
export { benchmarkKernel, measureCopyBandwidth, prepareKernel, timeKernel, PROBLEM_SEED } from './bench.ts'
export type { VerifiedKernel } from './bench.ts'
export { measureFmaThroughput, FMA_PROBE } from './fma-probe.ts'
export type { FmaThroughput } from './fma-probe.ts'
export { gpuKernelProvider, gpuKernelProviders } from './provider.ts'
export type { GpuKernelProvider } from './provider.ts'
export { confirmSpeedup, tuneKernel } from './tune.ts'
// The winner's-curse guard: fresh, interleaved re-measurement of a tuned winner against a baseline.
export { CONFIRM_METHOD, DEFAULT_CONFIRM_ROUNDS, confirmVerdict, runConfirmation } from '@kerneltune/stats'
export type { ConfirmOptions, ConfirmVerdict, SpeedupConfirmation } from '@kerneltune/stats'
export type { TuneOptions, TuneResult } from './tune.ts'
