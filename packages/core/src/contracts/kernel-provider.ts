import type { SearchParam } from './search.ts'
import type { MaybePromise, PluginBase } from './plugin.ts'

/** Generated code for one kernel configuration. */
export interface GeneratedKernel {
  readonly language: 'wgsl' | string
  readonly code: string
  readonly entryPoint: string
  readonly workgroupSize: readonly [number, number, number]
}

/**
 * A family of kernels: a parameter space with its validity constraints, code generation for one
 * configuration, and a reference implementation that results are checked against.
 */
export interface KernelProviderPlugin<Config = Record<string, unknown>, Problem = unknown, Output = unknown>
  extends PluginBase<'kernel-provider'> {
  readonly parameters: readonly SearchParam[]
  isValid(config: Config, problem: Problem): boolean | string
  generate(config: Config, problem: Problem): MaybePromise<GeneratedKernel>
  reference(problem: Problem): MaybePromise<Output>
}
