/**
 * @module @kerneltune/kernel-lab
 * Tier 3 kernel generation: the sandbox contract (what a candidate module is and what running it
 * reports). The Deno runner is in `@kerneltune/kernel-lab/node`.
 *
 * @example
 * ```ts
 * import { classifySandboxRun, SANDBOX_OUTCOMES } from '@kerneltune/kernel-lab'
 * ```
 */
export { SANDBOX_OUTCOMES, SandboxLimitsSchema, HarnessResultSchema, HARNESS_SOURCE, classifySandboxRun, deniedPermission } from './sandbox.ts'
export type { SandboxOutcome, SandboxLimits, SandboxReport, HarnessResult } from './sandbox.ts'
export { gemvTemplates, gemmTemplates } from './templates.ts'
export type { TemplateVariant } from './templates.ts'
export { kernelModule, kernelInputs, checkKernelOutput, KernelRunResultSchema } from './candidate.ts'
export type { KernelSpec, Verification, KernelTimings } from './candidate.ts'
export { PROVIDER_NAMES, templateProvider, parentModule, kernelFamily, checkRequest, perWorkgroup } from './providers.ts'
export type { ProviderName, GenerateRequest, Candidate, KernelProvider } from './providers.ts'
export { llmProvider, humanProvider, llmPrompt, extractWgsl } from './llm-provider.ts'
export type { LlmProviderOptions } from './llm-provider.ts'
export { selectKernel, usageNotes } from './selection.ts'
export type { Selection } from './selection.ts'
