/**
 * Runs a candidate module in a Deno subprocess that can do almost nothing: read its own input
 * folder, write its one result file, and (when asked) use WebGPU. No network, no environment, no
 * other files, no subprocesses, no FFI; a V8 heap cap plus a data-segment cap (prlimit --data)
 * and a wall-clock limit after which the whole process group is killed.
 *
 * WebGPU needs no file permission: Deno's wgpu backend loads the Vulkan driver natively, outside
 * the permission model, so no driver path is granted.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { KerneltuneError } from '@kerneltune/core'
import { classifySandboxRun, HARNESS_SOURCE, SandboxLimitsSchema, type SandboxLimits, type SandboxReport } from '../sandbox.ts'

export interface SandboxRunOptions {
  /** JSON handed to the candidate as ctx.input. */
  input?: unknown
  /** Binary files the candidate may read with ctx.readFile(name). */
  files?: Record<string, Uint8Array>
  limits?: Partial<SandboxLimits>
  /** The deno executable (default: the workspace's devDependency, else deno on PATH). */
  deno?: string
}

function ancestors(start: string): string[] {
  const out: string[] = []
  for (let d = start; ; d = dirname(d)) {
    out.push(d)
    if (dirname(d) === d) return out
  }
}

/**
 * The real deno binary. node_modules/.bin/deno is a shell shim that needs node on PATH, and the
 * sandbox runs with an empty environment, so resolve the binary the npm package installed.
 */
export function findDenoBinary(from: readonly string[] = [dirname(fileURLToPath(import.meta.url)), process.cwd()]): string | undefined {
  for (const start of from) {
    for (const d of ancestors(start)) {
      const bin = join(d, 'node_modules', 'deno', 'deno')
      if (existsSync(bin)) return realpathSync(bin)
      const shim = join(d, 'node_modules', '.bin', 'deno')
      if (existsSync(shim)) {
        const beside = join(dirname(shim), '..', 'deno', 'deno')
        if (existsSync(beside)) return realpathSync(beside)
      }
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = dir && join(dir, 'deno')
    if (p && existsSync(p)) return realpathSync(p)
  }
  return undefined
}

function findPrlimit(): string | undefined {
  return ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p))
}

const STDERR_CAP = 64 * 1024

/** Runs the module source in a fresh sandbox folder and reports what happened; never throws for the candidate's faults. */
export async function runInSandbox(source: string, options: SandboxRunOptions = {}): Promise<SandboxReport> {
  const limits = SandboxLimitsSchema.parse(options.limits ?? {})
  const deno = options.deno ?? findDenoBinary()
  if (!deno) throw new KerneltuneError('DEVICE_UNAVAILABLE', 'the sandbox needs Deno: install the workspace devDependencies (pnpm install) or put deno on PATH')
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'kerneltune-sandbox-')))
  const box = join(root, 'in')
  const out = join(root, 'out')
  const denoDir = join(root, 'deno-dir')
  try {
    mkdirSync(join(box, 'files'), { recursive: true })
    mkdirSync(out)
    mkdirSync(denoDir)
    writeFileSync(join(box, 'harness.js'), HARNESS_SOURCE)
    writeFileSync(join(box, 'candidate.js'), source)
    writeFileSync(join(box, 'input.json'), JSON.stringify(options.input ?? null))
    for (const [name, bytes] of Object.entries(options.files ?? {})) {
      if (!/^[\w.-]+$/.test(name)) throw new KerneltuneError('INVALID_INPUT', `sandbox file name "${name}" must be a bare name (letters, digits, . _ -)`)
      writeFileSync(join(box, 'files', name), bytes)
    }
    const resultPath = join(out, 'result.json')
    const permissions = [`--allow-read=${box}`, `--allow-write=${resultPath}`]
    const args = [
      'run', '--no-prompt', '--no-config', '--no-remote', '--no-npm', '--no-lock', '--quiet',
      ...permissions,
      ...(limits.webgpu ? ['--unstable-webgpu'] : []),
      `--v8-flags=--max-old-space-size=${limits.memoryMb}`,
      join(box, 'harness.js'), resultPath,
    ]
    // V8 reserves tens of GB of address space, so RLIMIT_AS cannot cap it; RLIMIT_DATA counts
    // real private allocations (heap and ArrayBuffers) and leaves room for the heap cap to act first.
    const prlimit = findPrlimit()
    const dataCap = limits.memoryMb * 4 * 1024 * 1024 + 512 * 1024 * 1024
    const [cmd, argv] = prlimit ? [prlimit, [`--data=${dataCap}`, '--nproc=4096', '--', deno, ...args]] : [deno, args]
    const started = performance.now()
    // A clean environment: nothing of the parent's leaks in. Deno needs only its cache folder.
    const child = spawn(cmd, argv, { cwd: box, env: { DENO_DIR: denoDir, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < STDERR_CAP) stderr += d.slice(0, STDERR_CAP - stderr.length)
    })
    let timedOut = false
    const kill = () => {
      try { process.kill(-child.pid!, 'SIGKILL') } catch { child.kill('SIGKILL') }
    }
    const timer = setTimeout(() => { timedOut = true; kill() }, limits.timeoutMs)
    const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve, reject) => {
      child.on('error', (e) => reject(new KerneltuneError('DEVICE_UNAVAILABLE', `could not start ${basename(cmd)}: ${e.message}`, { cause: e })))
      child.on('close', (code, sig) => resolve([code, sig]))
    }).finally(() => clearTimeout(timer))
    // Anything the candidate left running in its group goes too.
    if (!timedOut) kill()
    const wallMs = performance.now() - started
    let harness: unknown
    try { harness = JSON.parse(readFileSync(resultPath, 'utf8')) } catch { harness = undefined }
    return classifySandboxRun({ harness, exitCode, signal, timedOut, stderr, wallMs, limits, permissions })
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
