/**
 * Job script of `kerneltune autotune`, in the protocol of the CLI's WebGPU runner
 * (@kerneltune/gpu-kernels/webgpu-job): it exports `runJob(job, onProgress)`, and when run as a
 * script (`deno run -A deno-autotune.ts '<job JSON>'`) prints `{ "ok": true, "result": … }` or
 * `{ "ok": false, "error": { code, message } }` as its last stdout line, with
 * `@progress {…}` lines and skip messages on stderr. Node has no WebGPU, so the CLI spawns Deno.
 */
import { isKerneltuneError } from '@kerneltune/core'
import { closeGpu, openGpu } from '@kerneltune/gpu-kernels'
import { runAutotuneJob, type AutotuneEvent, type AutotuneJob } from './autotune-job.ts'

export interface SkippedConfig {
  config_id: string
  bits: number[]
  batch: number
  hidden: number
  error: string
}

export type AutotuneJobResult = Omit<Extract<AutotuneEvent, { event: 'done' }>, 'event'> & {
  timing: 'timestamp' | 'wall'
  total: number
  skipped: SkippedConfig[]
}

export interface JobProgress {
  done: number
  total: number
  note?: string
}

/** Opens the default WebGPU device, tunes, and returns the export plus a summary. */
export async function runJob(job: AutotuneJob, onProgress?: (p: JobProgress) => void, onLog?: (message: string) => void): Promise<AutotuneJobResult> {
  const gpu = await openGpu()
  const skipped: SkippedConfig[] = []
  let timing: 'timestamp' | 'wall' = 'wall'
  let total = 0
  let done: Extract<AutotuneEvent, { event: 'done' }> | undefined
  try {
    await runAutotuneJob(gpu, job, (e) => {
      if (e.event === 'start') {
        timing = e.timing
        total = e.total
        onProgress?.({ done: 0, total, note: e.device_name })
      } else if (e.event === 'progress') {
        onProgress?.({ done: e.done, total: e.total, note: `${e.bits.join('+')}-bit b${e.batch} h${e.hidden}` })
        if (!e.success) skipped.push({ config_id: e.config_id, bits: e.bits, batch: e.batch, hidden: e.hidden, error: e.error ?? '' })
      } else if (e.event === 'log') onLog?.(e.message)
      else done = e
    })
  } finally {
    await closeGpu(gpu)
  }
  const { event: _e, ...rest } = done!
  return { ...rest, timing, total, skipped }
}

declare const Deno: { args: string[]; exit(code: number): never }

if ((import.meta as { main?: boolean }).main) {
  try {
    const job = JSON.parse(Deno.args[0] ?? '{}') as AutotuneJob
    const result = await runJob(job, (p) => console.error(`@progress ${JSON.stringify(p)}`), (m) => console.error(`skip: ${m}`))
    console.log(JSON.stringify({ ok: true, result }))
  } catch (err) {
    const error = isKerneltuneError(err) ? { code: err.code, message: err.message } : { code: 'MEASUREMENT_FAILED', message: err instanceof Error ? err.message : String(err) }
    console.log(JSON.stringify({ ok: false, error }))
    Deno.exit(1)
  }
}
