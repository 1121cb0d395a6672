/**
 * The real measurement backend: runs `@kerneltune/gpu-kernels` WGSL kernels on the local WebGPU
 * device. Node has no WebGPU, so it keeps one Deno child process (gpu-kernels-worker.ts) alive
 * for the backend's lifetime and sends it one job per measurement over stdin/stdout; under a
 * runtime that has navigator.gpu it measures in-process. See gpu-kernels-mapping.ts for what a
 * combination is measured as.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import process from 'node:process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { KerneltuneError, type MeasurementBackend, type MeasurementResult } from '@kerneltune/core'
import { EQUIVALENT_VALUES, EXERCISED_DIMENSIONS, GPU_KERNELS_BACKEND, gpuKernelsProblem, type ScaleLimits } from '../gpu-kernels-mapping.ts'
import type { WorkerJob, WorkerResult } from './gpu-kernels-worker.ts'
import { withRegistryKernels } from './registry-kernels.node.ts'

const here = dirname(fileURLToPath(import.meta.url))
const WORKER = join(here, 'gpu-kernels-worker.ts')

function ancestors(start: string): string[] {
  const out: string[] = []
  for (let d = start; ; d = dirname(d)) {
    out.push(d)
    if (dirname(d) === d) return out
  }
}

/** node_modules/.bin/deno above this file or the working directory, else deno on PATH. */
export function findDeno(): string | undefined {
  for (const start of [here, process.cwd()]) for (const d of ancestors(start)) if (existsSync(join(d, 'node_modules', '.bin', 'deno'))) return join(d, 'node_modules', '.bin', 'deno')
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'deno'))) return join(dir, 'deno')
  return undefined
}

const workspaceRoot = () => ancestors(here).find((d) => existsSync(join(d, 'pnpm-workspace.yaml'))) ?? here

export interface GpuKernelsBackendOptions extends ScaleLimits {
  deno?: string
}

export interface GpuKernelsBackend extends MeasurementBackend {
  /** Stops the Deno worker. */
  close(): void
}

export function gpuKernelsBackend(options: GpuKernelsBackendOptions = {}): GpuKernelsBackend {
  let child: ChildProcess | undefined
  let ready: Promise<string> | undefined
  let nextId = 1
  const waiting = new Map<number, { resolve: (r: WorkerResult) => void; reject: (e: Error) => void }>()
  let stderrTail: string[] = []

  // The idle worker must not keep the host process alive; a busy one must (the host awaits it).
  const hold = (on: boolean) => {
    if (!child) return
    for (const x of [child, child.stdout, child.stderr, child.stdin] as unknown as { ref?: () => void; unref?: () => void }[]) on ? x?.ref?.() : x?.unref?.()
  }

  const start = (): Promise<string> => {
    if (ready) return ready
    const deno = options.deno ?? findDeno()
    if (!deno) return (ready = Promise.reject(new KerneltuneError('DEVICE_UNAVAILABLE', 'the gpu-kernels backend needs Deno for WebGPU and none was found (it is a devDependency: pnpm install); on a machine without a GPU also install Mesa\'s CPU Vulkan driver (apt-get install -y mesa-vulkan-drivers libvulkan1)')))
    ready = new Promise<string>((resolve, reject) => {
      const c = spawn(deno, ['run', '-A', WORKER], { cwd: workspaceRoot(), stdio: ['pipe', 'pipe', 'pipe'] })
      child = c
      c.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderrTail = [...stderrTail, ...d.split('\n').filter((l) => l.trim() && !/XDG_RUNTIME_DIR/.test(l))].slice(-10)
      })
      let started = false
      createInterface({ input: c.stdout! }).on('line', (line) => {
        let doc: { ready?: boolean; device?: string; error?: string; id?: number; ok?: boolean; result?: WorkerResult }
        try { doc = JSON.parse(line) } catch { return }
        if (!started && doc.ready !== undefined) {
          started = true
          if (waiting.size === 0) hold(false)
          if (doc.ready) resolve(doc.device ?? 'unknown device')
          else reject(new KerneltuneError('DEVICE_UNAVAILABLE', `no WebGPU device: ${doc.error}`))
          return
        }
        const w = waiting.get(doc.id ?? -1)
        if (!w) return
        waiting.delete(doc.id!)
        if (waiting.size === 0) hold(false)
        if (doc.ok) w.resolve(doc.result!)
        else w.reject(new KerneltuneError('MEASUREMENT_FAILED', `gpu-kernels: ${doc.error}`))
      })
      c.on('error', (e) => reject(new KerneltuneError('DEVICE_UNAVAILABLE', `could not start ${deno}: ${e.message}`)))
      c.on('close', (code) => {
        const err = new KerneltuneError('MEASUREMENT_FAILED', `the gpu-kernels worker exited (code ${code})${stderrTail.length ? `: ${stderrTail.join(' | ')}` : ''}`)
        if (!started) reject(new KerneltuneError('DEVICE_UNAVAILABLE', err.message))
        for (const w of waiting.values()) w.reject(err)
        waiting.clear()
        child = undefined
        ready = undefined
      })
      hold(true)
    })
    ready.catch(() => {})
    return ready
  }

  const send = async (job: Omit<WorkerJob, 'id'>, signal?: AbortSignal): Promise<WorkerResult> => {
    await start()
    const id = nextId++
    hold(true)
    return new Promise<WorkerResult>((resolve, reject) => {
      const onAbort = () => {
        waiting.delete(id)
        if (waiting.size === 0) hold(false)
        reject(new KerneltuneError('CANCELLED', 'the measurement was cancelled'))
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      waiting.set(id, {
        resolve: (r) => (signal?.removeEventListener('abort', onAbort), resolve(r)),
        reject: (e) => (signal?.removeEventListener('abort', onAbort), reject(e)),
      })
      child!.stdin!.write(JSON.stringify({ id, ...job }) + '\n')
    })
  }

  return {
    name: GPU_KERNELS_BACKEND,
    kind: 'measurement-backend',
    apiVersion: 1,
    // Read by people before a run starts (the dashboard: "proxy: <description>").
    description: 'times WGSL decode GEMV kernels on the server\'s WebGPU device, standing in for the engine on the hardware preset.',
    simulated: false,
    // WGSL GEMVs on this machine's WebGPU device stand in for the engine's kernels on the target.
    proxy: { engine: true, device: true, runs: 'WGSL decode GEMV kernels (gpu-kernels)' },
    exercises: EXERCISED_DIMENSIONS,
    equivalentValues: EQUIVALENT_VALUES,
    device: () => start(),
    async available() {
      try {
        await start()
        return { ok: true }
      } catch (e) {
        return { ok: false, reason: e instanceof Error ? e.message : String(e) }
      }
    },
    async measure(request): Promise<MeasurementResult> {
      if (!request.model || !request.workload) throw new KerneltuneError('INVALID_INPUT', 'the gpu-kernels backend needs the model and workload of the run')
      const plan = gpuKernelsProblem(request.combo, request.model, request.workload, options)
      const tuned = await send({ plan, repetitions: request.repetitions, warmups: request.warmups }, request.signal)
      // Registry kernels only when the run opted in (it then passes the tenant's entries).
      const registry = request.registryKernels ? await withRegistryKernels(plan, tuned, request, options.deno ? { deno: options.deno } : {}) : undefined
      const r = registry?.result ?? tuned
      const rows = plan.gemvs[0]!.m
      return {
        backend: GPU_KERNELS_BACKEND,
        simulated: false,
        device: `${r.device} (WebGPU via Deno, ${r.timing} timing)`,
        repetitions: r.reps.map((x) => ({ latencyMs: x.latencyMs, throughputTps: (rows * 1000) / x.latencyMs, peakMemoryBytes: r.bytes, breakdown: x.breakdown })),
        notes: [
          `measured: one decoder layer's projection GEMVs (${plan.gemvs.map((g) => `${g.name} ${g.m}x${g.n}x${g.k}`).join(', ')}) with ${plan.format} weights, configuration ${JSON.stringify(plan.config)}; throughput is activation rows per second through these kernels, not a whole model`,
          ...plan.notes,
          ...r.notes,
          ...(registry?.notes ?? []),
        ],
        ...(registry ? { registryKernels: registry.uses } : {}),
      }
    },
    close() {
      child?.stdin?.end()
      child?.kill()
    },
  }
}
