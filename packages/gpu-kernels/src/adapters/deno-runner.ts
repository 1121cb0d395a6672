/**
 * Runs a gpu-kernels job where WebGPU exists (Deno, or any runtime with navigator.gpu) and
 * prints its result as JSON. Hosts without WebGPU (the CLI on Node) spawn it:
 *
 *   deno run -A packages/gpu-kernels/src/adapters/deno-runner.ts '{"type":"info"}'
 *
 * stdout gets one JSON document, `{ "ok": true, "result": ... }` or `{ "ok": false, "error": ... }`;
 * stderr gets progress lines `@progress {"done":1,"total":6,"note":"..."}`. Hosts that do have
 * WebGPU import `runJob` and call it directly.
 */
import process from 'node:process'
import { isKerneltuneError, KerneltuneError } from '@kerneltune/core'
import { measureCopyBandwidth } from '../bench.ts'
import { closeGpu, deviceName, openGpu, type GpuContext } from '../gpu.ts'
import { configKey, enumerateConfigs } from '../params.ts'
import { benchmarkKernel } from '../bench.ts'
import { tuneKernel, type TuneResult } from '../tune.ts'
import { DEFAULT_SIZES } from '../problem-size.ts'
import { DEFAULT_CONFIRM_ROUNDS, type SpeedupConfirmation } from '@kerneltune/stats'
import { KERNEL_KINDS, WEIGHT_FORMATS, type KernelKind, type MatmulProblem, type WeightFormat, type CopyBandwidth, type KernelBenchResult } from '../types.ts'

export interface Sizes { m: number; n: number; k: number }

export type GpuKernelsJob =
  | { type: 'info' }
  | { type: 'verify'; kinds?: KernelKind[]; formats?: WeightFormat[]; sizes?: Partial<Record<KernelKind, Sizes>>; maxConfigs?: number }
  | { type: 'bench'; kinds?: KernelKind[]; formats?: WeightFormat[]; sizes?: Partial<Record<KernelKind, Sizes>>; maxConfigs?: number; warmup?: number; iterations?: number; copyBytes?: number; confirmRounds?: number }

export interface Progress { done: number; total: number; note?: string }

export interface DeviceReport {
  name: string
  adapterInfo: GpuContext['adapterInfo']
  hasTimestamps: boolean
  hasF16: boolean
  limits: GpuContext['limits']
}

export interface VerifyEntry { kind: KernelKind; format: WeightFormat; problem: MatmulProblem; tried: number; correct: number; failures: { config: KernelBenchResult['config']; error: string }[] }
export interface BenchEntry {
  kind: KernelKind
  format: WeightFormat
  problem: MatmulProblem
  tried: number
  correct: number
  default?: KernelBenchResult
  tuned?: KernelBenchResult
  /** default / tuned median on the selection timings: biased upward (winner's curse). */
  selectionSpeedup?: number
  /** Winner and default re-timed afresh, interleaved; its speedup is the one to report. */
  confirmation?: SpeedupConfirmation
  /** The confirmed speed-up (1 when the default won selection). */
  speedup?: number
  /** 'tuned' only when the fresh interval lies above 1 (or the default cannot run). */
  keep?: 'tuned' | 'default'
  /** tuned GB/s ÷ copy GB/s, and the same for the default. */
  tunedFractionOfCopy?: number
  defaultFractionOfCopy?: number
}

export { DEFAULT_SIZES }

function device(gpu: GpuContext): DeviceReport {
  return { name: deviceName(gpu), adapterInfo: gpu.adapterInfo, hasTimestamps: gpu.hasTimestamps, hasF16: gpu.hasF16, limits: gpu.limits }
}

function families(job: { kinds?: KernelKind[]; formats?: WeightFormat[]; sizes?: Partial<Record<KernelKind, Sizes>> }): { kind: KernelKind; problem: MatmulProblem }[] {
  const kinds = job.kinds?.length ? job.kinds : [...KERNEL_KINDS]
  const formats = job.formats?.length ? job.formats : [...WEIGHT_FORMATS]
  for (const k of kinds) if (!KERNEL_KINDS.includes(k)) throw new KerneltuneError('INVALID_INPUT', `unknown kernel kind "${k}"; kinds: ${KERNEL_KINDS.join(', ')}`)
  for (const f of formats) if (!WEIGHT_FORMATS.includes(f)) throw new KerneltuneError('INVALID_INPUT', `unknown format "${f}"; formats: ${WEIGHT_FORMATS.join(', ')}`)
  return kinds.flatMap((kind) => formats.map((format) => ({ kind, problem: { format, ...(job.sizes?.[kind] ?? DEFAULT_SIZES[kind]) } })))
}

export async function runJob(job: GpuKernelsJob, onProgress: (p: Progress) => void = () => {}): Promise<unknown> {
  const gpu = await openGpu()
  try {
    if (job.type === 'info') return { device: device(gpu) }
    const list = families(job)
    if (job.type === 'verify') {
      const entries: VerifyEntry[] = []
      for (const [i, { kind, problem }] of list.entries()) {
        // Verification only: every valid configuration (or an even sample), timed once.
        const all = enumerateConfigs(kind, problem.format, problem, gpu.limits)
        const max = job.maxConfigs ?? all.length
        const picked = all.length > max ? Array.from({ length: max }, (_, j) => all[Math.floor((j * all.length) / max)]!) : all
        const entry: VerifyEntry = { kind, format: problem.format, problem, tried: 0, correct: 0, failures: [] }
        for (const config of picked) {
          const r = await benchmarkKernel(gpu, kind, problem, config, { warmup: 0, iterations: 1 })
          entry.tried++
          if (r.correct) entry.correct++
          else entry.failures.push({ config, error: r.error ?? 'wrong result' })
        }
        entries.push(entry)
        onProgress({ done: i + 1, total: list.length, note: `${kind} ${problem.format}: ${entry.correct}/${entry.tried} correct` })
      }
      return { device: device(gpu), entries }
    }
    const timing = { warmup: job.warmup ?? 3, iterations: job.iterations ?? 10 }
    const copy: CopyBandwidth = await measureCopyBandwidth(gpu, job.copyBytes ?? 32 << 20, timing)
    onProgress({ done: 0, total: list.length, note: `copy ceiling ${copy.gbps.toFixed(2)} GB/s` })
    const entries: BenchEntry[] = []
    for (const [i, { kind, problem }] of list.entries()) {
      const t: TuneResult = await tuneKernel(gpu, kind, problem, { ...timing, maxConfigs: job.maxConfigs ?? 16, ...(job.confirmRounds !== undefined ? { confirmRounds: job.confirmRounds } : {}) })
      entries.push({
        kind,
        format: problem.format,
        problem,
        tried: t.tried,
        correct: t.correct,
        ...(t.default ? { default: t.default, defaultFractionOfCopy: t.default.gbps / copy.gbps } : {}),
        ...(t.best ? { tuned: t.best, tunedFractionOfCopy: t.best.gbps / copy.gbps } : {}),
        ...(t.selectionSpeedup !== undefined ? { selectionSpeedup: t.selectionSpeedup } : {}),
        ...(t.confirmation ? { confirmation: t.confirmation } : {}),
        ...(t.speedup !== undefined ? { speedup: t.speedup } : {}),
        ...(t.keep ? { keep: t.keep } : {}),
      })
      onProgress({ done: i + 1, total: list.length, note: `${kind} ${problem.format}: best ${t.best ? configKey(t.best.config) : 'none'}` })
    }
    return { device: device(gpu), copy, timing: { ...timing, confirmRounds: job.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS }, entries }
  } finally {
    await closeGpu(gpu)
  }
}

// Run as a script: the job is the first argument (JSON).
if ((import.meta as { main?: boolean }).main) {
  const write = (doc: unknown) => process.stdout.write(JSON.stringify(doc) + '\n')
  try {
    const job = JSON.parse(process.argv[2] ?? '{"type":"info"}') as GpuKernelsJob
    const result = await runJob(job, (p) => void process.stderr.write(`@progress ${JSON.stringify(p)}\n`))
    write({ ok: true, result })
  } catch (err) {
    const error = isKerneltuneError(err) ? err.toJSON() : { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) }
    write({ ok: false, error })
    process.exitCode = 1
  }
}
