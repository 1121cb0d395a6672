/**
 * Kernel providers behind one contract: a provider turns a request (kernel, format, problem,
 * how many) into candidate modules with their provenance. Candidates are unverified; the
 * sandbox decides (src/adapters/verify.node.ts).
 */
import { CONTRACT_VERSIONS, KerneltuneError, type KernelGeneratorPlugin } from '@kerneltune/core'
import { defaultConfig, dispatchSize, generateWgsl, KERNEL_KINDS, WEIGHT_FORMATS, type DeviceLimits, type KernelKind, type MatmulProblem } from '@kerneltune/gpu-kernels'
import { kernelModule } from './candidate.ts'
import { gemmTemplates, gemvTemplates } from './templates.ts'

export const PROVIDER_NAMES = ['template', 'llm', 'human'] as const
export type ProviderName = (typeof PROVIDER_NAMES)[number]

export interface GenerateRequest {
  kind: KernelKind
  problem: MatmulProblem
  count: number
  limits?: Partial<DeviceLimits>
}

export interface Candidate {
  name: string
  provider: ProviderName
  /** The kernel family it belongs to, e.g. gemv/q4_0. */
  kernelFamily: string
  /** The module the sandbox runs. */
  source: string
  /** What the provider changed and from what. */
  provenance: { template?: string; prompt?: string; file?: string; model?: string; description: string; parent: string }
}

/** The core `kernel-generator` contract, narrowed to the gpu-kernels problems. */
export interface KernelProvider extends KernelGeneratorPlugin<MatmulProblem> {
  readonly name: ProviderName
  generate(request: GenerateRequest): Promise<Candidate[]>
}

export function kernelFamily(kind: KernelKind, problem: MatmulProblem): string {
  return `${kind}/${problem.format}`
}

export function checkRequest(r: GenerateRequest): void {
  if (!KERNEL_KINDS.includes(r.kind)) throw new KerneltuneError('INVALID_INPUT', `unknown kernel "${r.kind}"; kernels: ${KERNEL_KINDS.join(', ')}`)
  if (!WEIGHT_FORMATS.includes(r.problem.format)) throw new KerneltuneError('INVALID_INPUT', `unknown format "${r.problem.format}"; formats: ${WEIGHT_FORMATS.join(', ')}`)
  if (!Number.isInteger(r.count) || r.count < 1) throw new KerneltuneError('INVALID_INPUT', `count must be a whole number >= 1, got ${r.count}`)
}

/** Outputs (n) and activation rows (m) per workgroup of a tuned kernel configuration (see dispatchSize). */
export function perWorkgroup(kind: KernelKind, config: Record<string, unknown>): [number, number] {
  return kind === 'gemv' ? [Number(config.rowsPerWorkgroup), 1] : [Number(config.tileN), Number(config.tileM)]
}

/** The tuned kernel's default configuration as a candidate-shaped module (the parent of every variant). */
export function parentModule(kind: KernelKind, problem: MatmulProblem): { source: string; parent: string } {
  const config = defaultConfig(kind, problem.format)
  const w = generateWgsl(kind, problem.format, config)
  return { source: kernelModule({ code: w.code, entryPoint: w.entryPoint, groups: dispatchSize(kind, config, problem), per: perWorkgroup(kind, config) }), parent: `${kind} default ${JSON.stringify(config)}` }
}

/** Structural variants of the existing kernels (see templates.ts). */
export function templateProvider(): KernelProvider {
  return {
    name: 'template', kind: 'kernel-generator', apiVersion: CONTRACT_VERSIONS['kernel-generator'],
    async generate(request) {
      checkRequest(request)
      const parent = `${request.kind} default ${JSON.stringify(defaultConfig(request.kind, request.problem.format))}`
      const variants = request.kind === 'gemv' ? gemvTemplates(request.problem, request.limits) : gemmTemplates(request.problem)
      return variants.slice(0, request.count).map((v) => ({
        name: `${v.template}.${request.problem.format}`,
        provider: 'template' as const,
        kernelFamily: kernelFamily(request.kind, request.problem),
        source: kernelModule(v),
        provenance: { template: v.template, description: v.description, parent },
      }))
    },
  }
}
