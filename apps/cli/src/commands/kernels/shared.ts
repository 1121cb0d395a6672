/** Flags and helpers shared by `kernels verify` and `kernels bench`. */
import { KERNEL_KINDS, WEIGHT_FORMATS, type KernelKind } from '@kerneltune/gpu-kernels'
import type { FlagSpec } from '../../cli/args.ts'
import { usageError } from '../../cli/args.ts'
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

export function parseSize(flag: string, value: string | undefined): { m: number; n: number; k: number } | undefined {
  if (value === undefined) return undefined
  const m = /^(\d+)x(\d+)x(\d+)$/.exec(value)
  if (!m) throw usageError(`--${flag} expects MxNxK (e.g. 1x4096x4096), got "${value}"`)
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (!a || !b || !c || c % 32 !== 0) throw usageError(`--${flag}: sizes must be positive and K a multiple of 32, got "${value}"`)
  return { m: a, n: b, k: c }
}

export function familyJob(flags: { kind?: string[]; format?: string[]; gemvSize?: string; gemmSize?: string; maxConfigs?: number }) {
  const sizes: Partial<Record<KernelKind, { m: number; n: number; k: number }>> = {}
  const gemv = parseSize('gemv-size', flags.gemvSize)
  const gemm = parseSize('gemm-size', flags.gemmSize)
  if (gemv) sizes.gemv = gemv
  if (gemm) sizes.gemm = gemm
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
