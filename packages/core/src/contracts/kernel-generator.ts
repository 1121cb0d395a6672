import type { MaybePromise, PluginBase } from './plugin.ts'

/** What a kernel generator is asked for: a kernel family, a problem, how many candidates. */
export interface KernelGenerateRequest<Problem = unknown> {
  readonly kind: string
  readonly problem: Problem
  readonly count: number
  readonly limits?: Readonly<Record<string, unknown>>
}

/**
 * One candidate: a self-contained ES module (WGSL plus host code; default export a function)
 * that runs in the kernel sandbox, with where it came from. Unverified until the sandbox says so.
 */
export interface KernelCandidate {
  readonly name: string
  readonly provider: string
  readonly kernelFamily: string
  readonly source: string
  readonly provenance: Readonly<{ description: string; parent: string; template?: string; prompt?: string; file?: string; model?: string }>
}

/**
 * Tier 3: writes new kernels (template transformations, an LLM, a person) rather than choosing
 * among configurations of a known one, which is what a `kernel-provider` does.
 */
export interface KernelGeneratorPlugin<Problem = unknown> extends PluginBase<'kernel-generator'> {
  generate(request: KernelGenerateRequest<Problem>): MaybePromise<readonly KernelCandidate[]>
}
