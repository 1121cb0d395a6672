/**
 * The shared vocabulary of the package: weight formats, kernel kinds, problems, configurations,
 * device limits and benchmark results. Kept in one file so that other packages (autotuners,
 * the CLI) can depend on the shapes without pulling in code generation or WebGPU.
 */

/**
 * Weight storage formats. q4_0 and q8_0 follow ggml's block layouts; q2_0 and q3_0 are
 * kerneltune's own 32-weight block formats (see formats.ts; not ggml's Q2_K/Q3_K); f16 is plain
 * half floats.
 */
export const WEIGHT_FORMATS = ['q4_0', 'q8_0', 'f16', 'q2_0', 'q3_0'] as const
export type WeightFormat = (typeof WEIGHT_FORMATS)[number]

/** gemv: decode (few activation rows); gemm: prefill (many activation rows, tiled). */
export const KERNEL_KINDS = ['gemv', 'gemm'] as const
export type KernelKind = (typeof KERNEL_KINDS)[number]

/**
 * y[m][n] = sum_k x[m][k] * W[n][k]: `m` activation rows (the batch or prompt tokens), `n` output
 * features (weight rows), `k` input features (a multiple of 32, the quantisation block size).
 */
export interface MatmulProblem {
  format: WeightFormat
  m: number
  n: number
  k: number
}

/** One point of a kernel's parameter space, e.g. { workgroupSize: 64, rowsPerWorkgroup: 2, ... }. */
export interface MatmulConfig {
  [param: string]: number | boolean
}

/** The device limits that decide which configurations can run. Defaults are WebGPU's. */
export interface DeviceLimits {
  maxComputeInvocationsPerWorkgroup: number
  maxComputeWorkgroupSizeX: number
  maxComputeWorkgroupStorageSize: number
  maxComputeWorkgroupsPerDimension: number
  maxStorageBufferBindingSize: number
  hasF16: boolean
  hasSubgroups: boolean
}

/** WebGPU's guaranteed minimum limits: a configuration valid under these runs everywhere. */
export const DEFAULT_LIMITS: DeviceLimits = {
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeWorkgroupsPerDimension: 65535,
  maxStorageBufferBindingSize: 134217728,
  hasF16: false,
  hasSubgroups: false,
}

export interface GeneratedWgsl {
  code: string
  entryPoint: string
  workgroupSize: [number, number, number]
}

export interface TimingOptions {
  warmup: number
  iterations: number
  /**
   * Time with cold weights: the runs rotate over copies of the weight buffers that together hold at
   * least this many bytes, so on a GPU whose cache holds the whole matrix (an H100's 50 MB L2 holds
   * a 4096×14336 Q4_0 matrix) the timing is not of a cache. A model's decode reads each matrix
   * once per token. Off (0) by default.
   */
  coldBytes?: number
}

export interface LatencyStats {
  mean: number
  median: number
  min: number
  samples: number[]
}

export interface KernelBenchResult {
  kind: KernelKind
  format: WeightFormat
  problem: MatmulProblem
  config: MatmulConfig
  /** False when the GPU result differed from the CPU reference by more than `tolerance`. */
  correct: boolean
  maxAbsError: number
  tolerance: number
  latencyMs: LatencyStats
  /** 'timestamp': GPU timestamp queries around the pass; 'wall': queue completion wall time. */
  timing: 'timestamp' | 'wall'
  /** bytesMoved / latency (median), in 1e9 bytes per second. */
  gbps: number
  /** flops / latency (median), in 1e9 per second. */
  gflops: number
  /** Compulsory bytes: the packed weights, the activations and the output, each counted once. */
  bytesMoved: number
  /** 2 * m * n * k. */
  flops: number
  /** Set when the configuration failed to compile or run; such a result is never timed. */
  error?: string
  /** Copies of the weights the timed runs rotated over (with `coldBytes`; 1 or absent otherwise). */
  weightCopies?: number
}

export interface CopyBandwidth {
  /** (read + write bytes) / median latency, in 1e9 bytes per second. */
  gbps: number
  latencyMs: number
  /** The size of the copied buffer (half the bytes moved). */
  bytes: number
}
