/**
 * `@kerneltune/features/node`: the parts that touch the machine. `detectHardware()` reads
 * node:os, /proc/cpuinfo, /sys/devices/system/node and, where present, `nvidia-smi`; `fromGguf`
 * reads a GGUF file's header from disk. A missing nvidia-smi or /proc is not an error.
 */
import { execFile } from 'node:child_process'
import { open, readdir, readFile } from 'node:fs/promises'
import os from 'node:os'
import type { HardwareSpec } from '@kerneltune/core'
import { findHardwarePreset } from '../hardware/presets.ts'
import { fromGgufBytes, type ByteSource, type ModelFromGguf } from '../model/gguf.ts'

export interface DetectedCpu {
  model: string
  arch: string
  platform: string
  /** Physical cores (from /proc/cpuinfo core ids; the thread count where that is unavailable). */
  cores: number
  threads: number
  mhz?: number
  ramGb: number
  numaNodes: number
  /** SIMD features that set the per-core FLOP rate. */
  simd: { avx2: boolean; avx512f: boolean; fma: boolean; neon: boolean; amx: boolean }
}

export interface DetectedGpu {
  index: number
  name: string
  memoryMb?: number
  driver?: string
  computeCapability?: string
  /** Id of the matching hardware preset, when the name maps to one. */
  preset?: string
}

export interface DetectedHardware {
  cpu: DetectedCpu
  gpus: DetectedGpu[]
  /** What happened with nvidia-smi: 'ok', 'absent' (not installed), or 'failed: <reason>'. */
  nvidiaSmi: string
}

const readText = (path: string) => readFile(path, 'utf8').catch(() => undefined)

function parseCpuinfo(text: string | undefined): { model?: string; cores?: number; mhz?: number; flags: Set<string> } {
  if (!text) return { flags: new Set() }
  const blocks = text.split(/\n\s*\n/).filter((b) => b.trim())
  const field = (b: string, k: string) => new RegExp(`^${k}\\s*:\\s*(.*)$`, 'mi').exec(b)?.[1]?.trim()
  const physical = new Set<string>()
  for (const b of blocks) {
    const core = field(b, 'core id')
    if (core !== undefined) physical.add(`${field(b, 'physical id') ?? 0}:${core}`)
  }
  const first = blocks[0] ?? ''
  const mhz = Number(field(first, 'cpu MHz'))
  return {
    model: field(first, 'model name') ?? field(first, 'Model') ?? field(first, 'Hardware'),
    cores: physical.size || undefined,
    mhz: Number.isFinite(mhz) && mhz > 0 ? mhz : undefined,
    flags: new Set((field(first, 'flags') ?? field(first, 'Features') ?? '').split(/\s+/).filter(Boolean)),
  }
}

async function numaNodes(): Promise<number> {
  const entries = await readdir('/sys/devices/system/node').catch(() => [] as string[])
  return Math.max(1, entries.filter((e) => /^node\d+$/.test(e)).length)
}

function run(cmd: string, args: string[]): Promise<{ ok: true; out: string } | { ok: false; absent: boolean; reason: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 10_000 }, (err, stdout) => {
      if (!err) return resolve({ ok: true, out: stdout })
      const code = (err as NodeJS.ErrnoException).code
      resolve({ ok: false, absent: code === 'ENOENT', reason: err.message.split('\n')[0] ?? String(code) })
    })
  })
}

/** Parses `nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(csv: string): DetectedGpu[] {
  return csv
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [index, name = '', mem, driver, cc] = line.split(',').map((s) => s.trim())
      const gpu: DetectedGpu = { index: Number(index), name }
      const memoryMb = Number(mem)
      if (Number.isFinite(memoryMb) && memoryMb > 0) gpu.memoryMb = memoryMb
      if (driver && !/N\/A|\[/.test(driver)) gpu.driver = driver
      if (cc && !/N\/A|\[/.test(cc)) gpu.computeCapability = cc
      const preset = matchGpuPreset(name, gpu.memoryMb)
      if (preset) gpu.preset = preset
      return gpu
    })
}

/** nvidia-smi names such as "NVIDIA H100 80GB HBM3" → a preset id. */
export function matchGpuPreset(name: string, memoryMb?: number): string | undefined {
  const n = name.replace(/^NVIDIA\s+/i, '').trim()
  const gb = memoryMb ? Math.round(memoryMb / 1024) : undefined
  const tries = [name, n, n.replace(/\s+\d+GB.*$/i, '')]
  if (/H100/i.test(n)) tries.unshift(/PCIe/i.test(n) ? 'h100-pcie' : /NVL/i.test(n) ? 'h100-nvl' : 'h100-sxm')
  if (/A100/i.test(n)) {
    const form = /PCIe/i.test(n) ? 'pcie' : 'sxm'
    tries.unshift(`a100-${form}-${gb !== undefined && gb > 60 ? 80 : 40}gb`)
  }
  for (const t of tries) {
    const p = findHardwarePreset(t)
    if (p) return p.id
  }
  return undefined
}

/** Detects this machine's CPU, RAM, NUMA nodes and NVIDIA GPUs. Never throws for missing tools. */
export async function detectHardware(): Promise<DetectedHardware> {
  const info = parseCpuinfo(await readText('/proc/cpuinfo'))
  const cpus = os.cpus()
  const threads = typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length
  const flags = info.flags
  const cpu: DetectedCpu = {
    model: info.model ?? cpus[0]?.model?.trim() ?? 'unknown',
    arch: os.arch(),
    platform: os.platform(),
    cores: info.cores ?? threads,
    threads,
    ramGb: os.totalmem() / 1024 ** 3,
    numaNodes: await numaNodes(),
    simd: {
      avx2: flags.has('avx2'),
      avx512f: flags.has('avx512f'),
      fma: flags.has('fma'),
      neon: flags.has('asimd') || flags.has('neon') || os.arch() === 'arm64',
      amx: flags.has('amx_tile'),
    },
  }
  const mhz = info.mhz ?? (cpus[0]?.speed || undefined)
  if (mhz) cpu.mhz = mhz
  const smi = await run('nvidia-smi', ['--query-gpu=index,name,memory.total,driver_version,compute_cap', '--format=csv,noheader,nounits'])
  if (smi.ok) return { cpu, gpus: parseNvidiaSmi(smi.out), nvidiaSmi: 'ok' }
  return { cpu, gpus: [], nvidiaSmi: smi.absent ? 'absent' : `failed: ${smi.reason}` }
}

/**
 * Peak single-thread copy bandwidth in GB/s (bytes read + written), measured with typed-array
 * copies. A lower bound on the machine's memory bandwidth: one thread rarely saturates DRAM.
 */
export function measureCopyBandwidthGbs(mib = 64, repeats = 5): number {
  const n = (mib * 1024 * 1024) / 8
  const a = new Float64Array(n).fill(1)
  const b = new Float64Array(n)
  let best = 0
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now()
    b.set(a)
    const secs = (performance.now() - t0) / 1000
    if (secs > 0) best = Math.max(best, (2 * a.byteLength) / secs / 1e9)
  }
  return best
}

/**
 * A HardwareSpec for the detected machine: the first GPU's preset when it has one, otherwise the
 * CPU with measured copy bandwidth and an FP32 FLOP estimate (cores × GHz × FLOPs per cycle from
 * the SIMD flags). The CPU figures are labelled as measured/estimated in `sources`.
 */
export function specFromDetected(d: DetectedHardware, presetLookup = findHardwarePreset): HardwareSpec {
  const gpu = d.gpus.find((g) => g.preset)
  const preset = gpu?.preset ? presetLookup(gpu.preset) : undefined
  if (preset) {
    const { aliases: _a, notes: _n, ...spec } = preset
    return spec
  }
  const ghz = (d.cpu.mhz ?? 2000) / 1000
  const perCycle = d.cpu.simd.avx512f ? 64 : d.cpu.simd.avx2 && d.cpu.simd.fma ? 32 : d.cpu.simd.neon ? 16 : 8
  const bw = measureCopyBandwidthGbs()
  return {
    id: 'this-machine',
    name: `${d.cpu.model} (${d.cpu.cores} cores)`,
    vendor: 'cpu',
    kind: 'cpu',
    memBwGbs: Math.max(bw, 0.1),
    fp16Tflops: Math.max((d.cpu.cores * ghz * perCycle) / 1000, 0.001),
    memoryGb: Math.round(d.cpu.ramGb * 10) / 10,
    unifiedMemory: true,
    sources: [
      `memBwGbs measured here: best single-thread copy bandwidth (${bw.toFixed(1)} GB/s), a lower bound`,
      `fp16Tflops estimated: ${d.cpu.cores} cores × ${ghz.toFixed(2)} GHz × ${perCycle} FP32 FLOPs/cycle (from /proc/cpuinfo flags)`,
    ],
  }
}

/** A ByteSource over a file on disk (reads only the ranges asked for). */
export async function fileByteSource(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  const handle = await open(path, 'r')
  const { size } = await handle.stat()
  return {
    size,
    async read(start, end) {
      const buf = new Uint8Array(Math.max(0, Math.min(end, size) - start))
      await handle.read(buf, 0, buf.byteLength, start)
      return buf
    },
    close: () => handle.close(),
  }
}

/** Reads a GGUF file's metadata into a ModelSpec (see `fromGgufMetadata`). */
export async function fromGguf(path: string): Promise<ModelFromGguf> {
  const src = await fileByteSource(path)
  try {
    return await fromGgufBytes(src)
  } finally {
    await src.close()
  }
}

/** Reads and parses a config.json file. */
export async function readJsonFile(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'))
}
