/**
 * The WebGPU side of the gpu-kernels backend, run under Deno (which has WebGPU; Node does not):
 *
 *   deno run -A packages/backends/src/adapters/gpu-kernels-worker.ts
 *
 * It opens the device once, then reads one JSON job per stdin line,
 * `{ "id": 1, "plan": GpuKernelsPlan, "repetitions": 7, "warmups": 1 }`, and answers each with one
 * stdout line `{ "id": 1, "ok": true, "result": … }` or `{ "id": 1, "ok": false, "error": … }`.
 * The first line it prints is `{ "ready": true, "device": "…" }` (or `{ "ready": false, "error": … }`).
 */
import process from 'node:process'
import { createInterface } from 'node:readline'
import { benchmarkKernel, closeGpu, deviceName, isValidConfig, defaultConfig, openGpu, weightBytes, type GpuContext } from '@kerneltune/gpu-kernels'
import type { GpuKernelsPlan } from '../gpu-kernels-mapping.ts'

export interface WorkerJob { id: number; plan: GpuKernelsPlan; repetitions: number; warmups: number }
export interface WorkerRep { latencyMs: number; breakdown: Record<string, number> }
export interface WorkerResult { device: string; timing: string; reps: WorkerRep[]; bytes: number; notes: string[] }

export async function measurePlan(gpu: GpuContext, job: WorkerJob): Promise<WorkerResult> {
  const { plan } = job
  const notes: string[] = []
  const perGemv: { name: string; samples: number[]; timing: string }[] = []
  let bytes = 0
  for (const g of plan.gemvs) {
    const problem = { format: plan.format, m: g.m, n: g.n, k: g.k }
    let config = plan.config
    const valid = isValidConfig('gemv', plan.format, config, problem, gpu.limits)
    if (valid !== true) {
      notes.push(`${g.name}: configuration not valid for ${g.m}x${g.n}x${g.k} (${valid}); used the default`)
      config = defaultConfig('gemv', plan.format) as Record<string, number>
    }
    const r = await benchmarkKernel(gpu, 'gemv', problem, config, { warmup: job.warmups, iterations: job.repetitions })
    if (!r.correct) throw new Error(`${g.name} ${plan.format} ${g.m}x${g.n}x${g.k}: ${r.error ?? 'wrong result'}`)
    perGemv.push({ name: g.name, samples: r.latencyMs.samples, timing: r.timing })
    bytes += weightBytes(plan.format, g.n, g.k) + 4 * g.m * g.k + 4 * g.m * g.n
  }
  const reps: WorkerRep[] = []
  for (let i = 0; i < job.repetitions; i++) {
    const breakdown = Object.fromEntries(perGemv.map((p) => [p.name, p.samples[i] ?? p.samples[p.samples.length - 1]!]))
    reps.push({ latencyMs: Object.values(breakdown).reduce((a, b) => a + b, 0), breakdown })
  }
  return { device: deviceName(gpu), timing: perGemv[0]?.timing ?? 'wall', reps, bytes, notes }
}

if ((import.meta as { main?: boolean }).main) {
  const write = (doc: unknown) => process.stdout.write(JSON.stringify(doc) + '\n')
  let gpu: GpuContext
  try {
    gpu = await openGpu()
    write({ ready: true, device: deviceName(gpu) })
  } catch (e) {
    write({ ready: false, error: e instanceof Error ? e.message : String(e) })
    process.exit(1)
  }
  const rl = createInterface({ input: process.stdin })
  // One job at a time: the device is measured by one kernel at a time.
  let chain = Promise.resolve()
  rl.on('line', (line) => {
    chain = chain.then(async () => {
      let job: WorkerJob | undefined
      try {
        job = JSON.parse(line) as WorkerJob
        write({ id: job.id, ok: true, result: await measurePlan(gpu, job) })
      } catch (e) {
        write({ id: job?.id ?? -1, ok: false, error: e instanceof Error ? e.message : String(e) })
      }
    })
  })
  rl.on('close', () => void chain.then(async () => { await closeGpu(gpu); process.exit(0) }))
}
