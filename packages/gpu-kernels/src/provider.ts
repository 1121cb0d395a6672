/**
 * The core `kernel-provider` plugin for one kernel family (kind × format): its parameter space,
 * validity constraints, WGSL generation and CPU reference, for searchers and the registry.
 */
import { CONTRACT_VERSIONS, type GeneratedKernel, type KernelProviderPlugin } from '@kerneltune/core'
import { generateWgsl } from './codegen.ts'
import { defaultConfig, isValidConfig, kernelParameters } from './params.ts'
import { makeProblemData, referenceMatmul } from './reference.ts'
import { DEFAULT_LIMITS, KERNEL_KINDS, WEIGHT_FORMATS, type DeviceLimits, type KernelKind, type MatmulConfig, type MatmulProblem, type WeightFormat } from './types.ts'
import { PROBLEM_SEED } from './bench.ts'

export interface GpuKernelProvider extends KernelProviderPlugin<MatmulConfig, MatmulProblem, Float32Array> {
  readonly kernelKind: KernelKind
  readonly format: WeightFormat
  readonly defaultConfig: MatmulConfig
}

/** A provider named `gpu-kernels:<kind>-<format>`, e.g. `gpu-kernels:gemv-q4_0`. */
export function gpuKernelProvider(kind: KernelKind, format: WeightFormat, limits: DeviceLimits = DEFAULT_LIMITS): GpuKernelProvider {
  return {
    name: `gpu-kernels:${kind}-${format}`,
    kind: 'kernel-provider',
    apiVersion: CONTRACT_VERSIONS['kernel-provider'],
    description: `WGSL ${kind === 'gemv' ? 'decode matrix-vector' : 'prefill matrix-matrix'} product over ${format} weights`,
    kernelKind: kind,
    format,
    parameters: kernelParameters(kind, format),
    defaultConfig: defaultConfig(kind, format),
    isValid: (config, problem) => isValidConfig(kind, format, config, problem, limits),
    generate: (config): GeneratedKernel => {
      const g = generateWgsl(kind, format, config)
      return { language: 'wgsl', code: g.code, entryPoint: g.entryPoint, workgroupSize: g.workgroupSize }
    },
    // The reference output for the problem's standard data (seed PROBLEM_SEED, as benchmarks use).
    reference: (problem) => {
      const { weights, activations } = makeProblemData(problem, PROBLEM_SEED)
      return referenceMatmul(problem, weights, activations)
    },
  }
}

/** One provider per kernel kind and weight format. */
export function gpuKernelProviders(limits: DeviceLimits = DEFAULT_LIMITS): GpuKernelProvider[] {
  return KERNEL_KINDS.flatMap((kind) => WEIGHT_FORMATS.map((format) => gpuKernelProvider(kind, format, limits)))
}
