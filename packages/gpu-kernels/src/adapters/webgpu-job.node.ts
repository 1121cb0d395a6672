/**
 * Runs a WebGPU job from a Node host (the CLI). Node has no WebGPU, so a job runs in-process only when this
 * runtime has navigator.gpu (the CLI run by Deno or in a browser); otherwise it spawns
 * `deno run -A <script> '<job JSON>'` and reads the result back.
 *
 * A job script is a module that exports `runJob(job, onProgress)` and, when run as a script,
 * takes the job as its first argument, prints `{ "ok": true, "result": … }` or
 * `{ "ok": false, "error": { code, message } }` as the last stdout line, and writes progress to
 * stderr as `@progress {"done":…,"total":…,"note":…}` lines
 * (./deno-runner.ts is this package's own; `denoRunnerScript()` finds it).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { KerneltuneError, isKerneltuneError, ERROR_CODES, type ErrorCode } from '@kerneltune/core'

export interface WebGpuProgress { done: number; total: number; note?: string }

export interface WebGpuJobOptions {
  /** Absolute path of the job script. */
  script: string
  /** Anything JSON-serialisable; passed to runJob. */
  job: unknown
  onProgress?: (p: WebGpuProgress) => void
  /** Other stderr lines of the child (Deno's harmless XDG_RUNTIME_DIR notice is dropped). */
  onLog?: (line: string) => void
  /** The deno executable; found with findDeno() when absent. */
  deno?: string
  /** 'auto' (default): in-process when navigator.gpu exists, else Deno; 'deno': always spawn. */
  mode?: 'auto' | 'deno' | 'in-process'
}

/** True when the current runtime exposes WebGPU. */
export function hasRuntimeWebGpu(): boolean {
  return Boolean((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu)
}

function ancestors(start: string): string[] {
  const out: string[] = []
  for (let d = start; ; d = dirname(d)) {
    out.push(d)
    if (dirname(d) === d) return out
  }
}

/** node_modules/.bin/deno above `from` (default: this file and the working directory), else deno on PATH. */
export function findDeno(from: readonly string[] = [dirname(fileURLToPath(import.meta.url)), process.cwd()]): string | undefined {
  for (const start of from) {
    for (const d of ancestors(start)) {
      const p = join(d, 'node_modules', '.bin', 'deno')
      if (existsSync(p)) return p
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'deno'))) return join(dir, 'deno')
  }
  return undefined
}

// Deno resolves bare imports from the package.json of its working directory: run it at the
// workspace root above the script.
function workspaceRoot(script: string): string {
  for (const d of ancestors(dirname(script))) if (existsSync(join(d, 'pnpm-workspace.yaml'))) return d
  return dirname(script)
}

const NO_WEBGPU = 'WebGPU is not available: this runtime has no navigator.gpu and Deno was not found. Install Deno (it is a devDependency: pnpm install) and, on a machine without a GPU, Mesa\'s CPU Vulkan driver (apt-get install -y mesa-vulkan-drivers libvulkan1)'

function toError(e: { code?: string; message?: string } | undefined, fallback: string): KerneltuneError {
  const code = (ERROR_CODES as readonly string[]).includes(e?.code ?? '') ? (e!.code as ErrorCode) : 'MEASUREMENT_FAILED'
  return new KerneltuneError(code, e?.message ?? fallback)
}

/**
 * This package's job script, ./deno-runner: the TypeScript source beside this file, else the
 * built one, else (this file bundled into another, e.g. the CLI's single-file build) the
 * installed package's export.
 */
export function denoRunnerScript(): string {
  for (const name of ['./deno-runner.ts', './deno-runner.js']) {
    const path = fileURLToPath(new URL(name, import.meta.url))
    if (existsSync(path)) return path
  }
  return fileURLToPath(import.meta.resolve('@kerneltune/gpu-kernels/deno-runner'))
}

/** Runs the job and resolves with its result; rejects with a KerneltuneError. */
export async function runWebGpuJob<T = unknown>(opts: WebGpuJobOptions): Promise<T> {
  const mode = opts.mode ?? 'auto'
  if (mode === 'in-process' || (mode === 'auto' && hasRuntimeWebGpu())) {
    const mod = (await import(pathToFileURL(opts.script).href)) as { runJob(job: unknown, p?: (p: WebGpuProgress) => void): Promise<T> }
    try {
      return await mod.runJob(opts.job, opts.onProgress)
    } catch (err) {
      throw isKerneltuneError(err) ? err : new KerneltuneError('MEASUREMENT_FAILED', err instanceof Error ? err.message : String(err), { cause: err })
    }
  }
  const deno = opts.deno ?? findDeno()
  if (!deno) throw new KerneltuneError('DEVICE_UNAVAILABLE', NO_WEBGPU)
  return new Promise<T>((resolve, reject) => {
    const child = spawn(deno, ['run', '-A', opts.script, JSON.stringify(opts.job)], { cwd: workspaceRoot(opts.script), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let errBuf = ''
    const stderrTail: string[] = []
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      errBuf += d
      let nl: number
      while ((nl = errBuf.indexOf('\n')) >= 0) {
        const line = errBuf.slice(0, nl)
        errBuf = errBuf.slice(nl + 1)
        if (line.startsWith('@progress ')) {
          try { opts.onProgress?.(JSON.parse(line.slice(10)) as WebGpuProgress) } catch { /* a torn line: skip */ }
        } else if (!/XDG_RUNTIME_DIR/.test(line) && line.trim()) {
          stderrTail.push(line)
          if (stderrTail.length > 20) stderrTail.shift()
          opts.onLog?.(line)
        }
      }
    })
    child.on('error', (err) => reject(new KerneltuneError('DEVICE_UNAVAILABLE', `could not start ${deno}: ${err.message}. ${NO_WEBGPU}`, { cause: err })))
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? ''
      let doc: { ok?: boolean; result?: T; error?: { code?: string; message?: string } } | undefined
      try { doc = JSON.parse(last) } catch { doc = undefined }
      if (doc?.ok) return resolve(doc.result as T)
      if (doc && doc.ok === false) return reject(toError(doc.error, 'the WebGPU job failed'))
      reject(new KerneltuneError('MEASUREMENT_FAILED', `the WebGPU job exited with code ${code} without a result${stderrTail.length ? `: ${stderrTail.slice(-5).join(' | ')}` : ''}`))
    })
  })
}
