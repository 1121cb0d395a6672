/**
 * Verification of a kernel candidate: run its module in the WebGPU sandbox on the seeded problem
 * data, compare the output with the CPU reference computed here (outside the sandbox), and keep
 * the timings only when it is correct.
 */
import type { MatmulProblem } from '@kerneltune/gpu-kernels'
import { checkKernelOutput, kernelInputs, type KernelTimings, type Verification } from '../candidate.ts'
import type { SandboxLimits, SandboxOutcome } from '../sandbox.ts'
import { runInSandbox } from './deno-sandbox.node.ts'

export interface VerifyOptions {
  timing?: { warmup: number; iterations: number }
  limits?: Partial<Omit<SandboxLimits, 'webgpu'>>
  deno?: string
}

export interface VerificationReport {
  verified: boolean
  problem: MatmulProblem
  sandbox: { outcome: SandboxOutcome; denied?: string; error?: { name: string; message: string }; wallMs: number; permissions: string[] }
  verification: Verification
  timings?: KernelTimings
  device: 'WebGPU in the Deno sandbox'
}

export async function verifyInSandbox(source: string, problem: MatmulProblem, options: VerifyOptions = {}): Promise<VerificationReport> {
  const timing = options.timing ?? { warmup: 3, iterations: 10 }
  const inputs = kernelInputs(problem, timing)
  const report = await runInSandbox(source, {
    input: inputs.input,
    files: inputs.files,
    limits: { timeoutMs: 60_000, memoryMb: 1024, ...options.limits, webgpu: true },
    ...(options.deno ? { deno: options.deno } : {}),
  })
  const sandbox = { outcome: report.outcome, ...(report.denied ? { denied: report.denied } : {}), ...(report.error ? { error: report.error } : {}), wallMs: report.wallMs, permissions: report.permissions }
  if (!report.ok) {
    return { verified: false, problem, sandbox, verification: { correct: false, maxAbsError: NaN, tolerance: NaN, error: `the sandbox stopped it (${report.outcome}): ${report.error?.message ?? ''}` }, device: 'WebGPU in the Deno sandbox' }
  }
  const { verification, timings } = checkKernelOutput(problem, report.result, inputs.reference())
  return { verified: verification.correct, problem, sandbox, verification, ...(timings ? { timings } : {}), device: 'WebGPU in the Deno sandbox' }
}
