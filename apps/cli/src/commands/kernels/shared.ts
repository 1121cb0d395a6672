/** Flags and helpers shared by `kernels verify` and `kernels bench`. */
import { KERNEL_KINDS, WEIGHT_FORMATS, parseProblemSize, type KernelKind, type ProblemSize } from '@kerneltune/gpu-kernels'
import type { FlagSpec } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { progressBar, type Progress } from '../../cli/output.ts'
import { denoRunnerScript, runWebGpuJob, type WebGpuProgress } from '@kerneltune/gpu-kernels/webgpu-job'

export const FAMILY_FLAGS = [
  { name: 'kind', type: 'list', description: 'Kernel kinds (default: all).', choices: [...KERNEL_KINDS] },
  { name: 'format', type: 'list', description: 'Weight formats (default: all).', choices: [...WEIGHT_FORMATS] },
  { name: 'gemv-size', type: 'string', valueName: 'MxNxK', description: 'Decode problem: activation rows × outputs × inputs (default 1x256x1024).' },
  { name: 'gemm-size', type: 'string', valueName: 'MxNxK', description: 'Prefill problem (default 32x128x512).' },
  { name: 'max-configs', type: 'integer', min: 1, description: 'Most configurations per kernel and format.' },
] as const satisfies readonly FlagSpec[]

export function familyJob(flags: { kind?: string[]; format?: string[]; gemvSize?: string; gemmSize?: string; maxConfigs?: number }) {
  const sizes: Partial<Record<KernelKind, ProblemSize>> = {}
  if (flags.gemvSize !== undefined) sizes.gemv = parseProblemSize(flags.gemvSize, '--gemv-size')
  if (flags.gemmSize !== undefined) sizes.gemm = parseProblemSize(flags.gemmSize, '--gemm-size')
  return {
    ...(flags.kind?.length ? { kinds: flags.kind } : {}),
    ...(flags.format?.length ? { formats: flags.format } : {}),
    sizes,
    ...(flags.maxConfigs ? { maxConfigs: flags.maxConfigs } : {}),
  }
}

/** Runs a gpu-kernels job with a progress bar on stderr. */
export async function runKernelsJob<T>(io: Io, label: string, job: unknown): Promise<T> {
  let bar: Progress | undefined
  const onProgress = (p: WebGpuProgress) => {
    bar ??= progressBar(io, label, p.total)
    bar.update(p.done, p.note)
  }
  const result = await runWebGpuJob<T>({ script: denoRunnerScript(), job, onProgress, onLog: (l) => io.stderr(`${l}\n`) })
  bar?.done()
  return result
}
