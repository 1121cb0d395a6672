/**
 * The device's identity for every figure: GPU, driver and CUDA from nvidia-smi and the build,
 * the CPU, llama.cpp's version from the kit's manifest and from llama-server itself.
 */
import { existsSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import type { DeviceIdentity, KitContext } from './kit-context.ts'
import { runProc } from './kit-proc.ts'

interface Manifest {
  readonly kerneltune?: { commit?: string; dirty?: boolean; dirtyFiles?: string[] }
  readonly llamaCpp?: { tag?: string; commit?: string }
}

/** One line of `nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader,nounits`. */
export function parseNvidiaSmiGpu(line: string): DeviceIdentity['gpu'] {
  const parts = line.split(',').map((s) => s.trim())
  if (parts.length < 4 || !parts[0]) return null
  return { name: parts[0], driver: parts[1] ?? '', memoryMiB: Number(parts[2]), computeCap: parts[3] ?? '' }
}

/** "CUDA Version: 13.0" from nvidia-smi's banner, or nvcc's "release 13.0, V13.0.88". */
export function parseCudaVersion(text: string): string | null {
  return /CUDA Version:\s*([\d.]+)/.exec(text)?.[1] ?? /release ([\d.]+), V([\d.]+)/.exec(text)?.[2] ?? null
}

export async function deviceIdentity(ctx: KitContext, manifestPath: string, buildInfoPath: string): Promise<DeviceIdentity> {
  const manifest: Manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {}
  const buildInfo: { nvcc?: string } = existsSync(buildInfoPath) ? JSON.parse(readFileSync(buildInfoPath, 'utf8')) : {}
  let gpu: DeviceIdentity['gpu'] = null
  let cuda: string | null = null
  if (ctx.plan.mode === 'cuda') {
    const q = await runProc('nvidia-smi', ['--query-gpu=name,driver_version,memory.total,compute_cap', '--format=csv,noheader,nounits'], { timeoutMs: 20_000 })
    gpu = parseNvidiaSmiGpu(q.stdout.split('\n')[0] ?? '')
    const banner = await runProc('nvidia-smi', [], { timeoutMs: 20_000 })
    // The toolkit that compiled llama.cpp, and the highest the driver supports.
    cuda = [buildInfo.nvcc ? `toolkit ${parseCudaVersion(buildInfo.nvcc) ?? buildInfo.nvcc}` : null, parseCudaVersion(banner.stdout) ? `driver supports ${parseCudaVersion(banner.stdout)}` : null].filter(Boolean).join('; ') || null
  }
  const v = await runProc(join(ctx.binDir, 'llama-server'), ['--version'], { timeoutMs: 20_000 })
  const version = `${v.stdout}\n${v.stderrTail}`.split('\n').map((s) => s.trim()).filter((s) => /^version:/.test(s)).join(' ') || 'unknown'
  const c = cpus()
  return {
    mode: ctx.plan.mode,
    gpu,
    cuda,
    cpu: { model: c[0]?.model ?? 'unknown', cores: c.length, threads: ctx.threads },
    llamaCpp: { tag: manifest.llamaCpp?.tag ?? 'unknown', commit: manifest.llamaCpp?.commit ?? 'unknown', version },
    kerneltune: { commit: manifest.kerneltune?.commit ?? 'unknown', dirty: manifest.kerneltune?.dirty ?? false, dirtyFiles: manifest.kerneltune?.dirtyFiles ?? 'not recorded' },
    node: process.version,
  }
}
