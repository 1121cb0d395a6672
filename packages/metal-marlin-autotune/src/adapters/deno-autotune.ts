/**
 * Deno entry of `kerneltune autotune`: Node has no WebGPU, so the CLI runs this script under
 * `deno run -A` with the job as JSON in the first argument, and reads one JSON event per line
 * from stdout (see `AutotuneEvent`). Errors go out as `{ "event": "error", ... }` with exit code 1.
 */
import { openGpu } from '@kerneltune/gpu-kernels'
import { isKerneltuneError } from '@kerneltune/core'
import { runAutotuneJob, type AutotuneJob } from './autotune-job.ts'

declare const Deno: { args: string[]; exit(code: number): never }

const line = (value: unknown) => console.log(JSON.stringify(value))

try {
  const job = JSON.parse(Deno.args[0] ?? '{}') as AutotuneJob
  const gpu = await openGpu()
  await runAutotuneJob(gpu, job, line)
  gpu.device.destroy()
} catch (err) {
  line({ event: 'error', code: isKerneltuneError(err) ? err.code : 'MEASUREMENT_FAILED', message: err instanceof Error ? err.message : String(err) })
  Deno.exit(1)
}
