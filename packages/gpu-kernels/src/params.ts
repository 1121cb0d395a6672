/**
 * Parameter spaces of the kernels, their validity constraints, enumeration and defaults.
 *
 * gemv (decode): each workgroup computes `rowsPerWorkgroup` outputs of one activation row;
 * `workgroupSize / rowsPerWorkgroup` threads share a row, each taking `unroll` consecutive
 * 32-weight blocks per step, then reduce through workgroup memory. `vecWidth` 4 reads
 * activations as vec4<f32>, 1 as scalars.
 *
 * gemm (prefill): each workgroup computes a tileM×tileN output tile; each thread a
 * threadM×threadN sub-tile (so the workgroup has (tileM/threadM)·(tileN/threadN) threads).
 * With `useSharedMemory` every 32-wide slice of the activation and (dequantised) weight tiles is
 * staged in workgroup memory and shared by all threads; without it threads read global memory.
 */
import type { SearchParam } from '@kerneltune/core'
import { BLOCK, weightBytes } from './formats.ts'
import { DEFAULT_LIMITS, type DeviceLimits, type KernelKind, type MatmulConfig, type MatmulProblem, type WeightFormat } from './types.ts'

const GEMV_PARAMS: SearchParam[] = [
  { name: 'workgroupSize', type: 'ordinal', values: [32, 64, 128, 256] },
  { name: 'rowsPerWorkgroup', type: 'ordinal', values: [1, 2, 4, 8] },
  { name: 'vecWidth', type: 'ordinal', values: [1, 4] },
  { name: 'unroll', type: 'ordinal', values: [1, 2, 4] },
]

const GEMM_PARAMS: SearchParam[] = [
  { name: 'tileM', type: 'ordinal', values: [8, 16, 32, 64] },
  { name: 'tileN', type: 'ordinal', values: [8, 16, 32, 64] },
  { name: 'threadM', type: 'ordinal', values: [1, 2, 4] },
  { name: 'threadN', type: 'ordinal', values: [1, 2, 4] },
  { name: 'useSharedMemory', type: 'categorical', values: [false, true] },
]

/** The parameter space of a kernel (the same for every format: formats change the inner loop). */
export function kernelParameters(kind: KernelKind, _format: WeightFormat): SearchParam[] {
  return (kind === 'gemv' ? GEMV_PARAMS : GEMM_PARAMS).map((p) => ({ ...p, values: [...p.values] }))
}

/** The configuration a user gets without tuning: middle-of-the-road choices common in WGSL code. */
export function defaultConfig(kind: KernelKind, _format: WeightFormat): MatmulConfig {
  return kind === 'gemv'
    ? { workgroupSize: 64, rowsPerWorkgroup: 1, vecWidth: 1, unroll: 1 }
    : { tileM: 16, tileN: 16, threadM: 1, threadN: 1, useSharedMemory: false }
}

/** Workgroup shape of a configuration, as declared in its WGSL. */
export function workgroupShape(kind: KernelKind, config: MatmulConfig): [number, number, number] {
  if (kind === 'gemv') return [Number(config.workgroupSize), 1, 1]
  return [Number(config.tileN) / Number(config.threadN), Number(config.tileM) / Number(config.threadM), 1]
}

/** Workgroups to dispatch for a problem. */
export function dispatchSize(kind: KernelKind, config: MatmulConfig, problem: MatmulProblem): [number, number, number] {
  if (kind === 'gemv') return [Math.ceil(problem.n / Number(config.rowsPerWorkgroup)), problem.m, 1]
  return [Math.ceil(problem.n / Number(config.tileN)), Math.ceil(problem.m / Number(config.tileM)), 1]
}

/** Bytes of workgroup memory a configuration declares. */
export function sharedBytes(kind: KernelKind, config: MatmulConfig): number {
  if (kind === 'gemv') return Number(config.workgroupSize) * 4
  return config.useSharedMemory ? (Number(config.tileM) + Number(config.tileN)) * BLOCK * 4 : 0
}

function checkValues(kind: KernelKind, config: MatmulConfig): string | undefined {
  for (const p of kind === 'gemv' ? GEMV_PARAMS : GEMM_PARAMS) {
    if (!(p.name in config)) return `missing parameter ${p.name}`
    if (!p.values.includes(config[p.name]!)) return `${p.name}=${String(config[p.name])} is not one of ${p.values.join(', ')}`
  }
  return undefined
}

/**
 * True when the configuration can run the problem on a device with these limits, otherwise the
 * reason it cannot. Some constraints prune configurations that would run but waste most of the
 * workgroup (more threads on a row than it has blocks, a tile far larger than the batch).
 */
export function isValidConfig(kind: KernelKind, format: WeightFormat, config: MatmulConfig, problem: MatmulProblem, limits: DeviceLimits = DEFAULT_LIMITS): true | string {
  const bad = checkValues(kind, config)
  if (bad) return bad
  const { m, n, k } = problem
  if (k % BLOCK !== 0) return `k=${k} is not a multiple of ${BLOCK}`
  if (problem.format !== format) return `problem format ${problem.format} differs from kernel format ${format}`
  const nb = k / BLOCK
  const shape = workgroupShape(kind, config)
  const threads = shape[0] * shape[1] * shape[2]
  if (threads > limits.maxComputeInvocationsPerWorkgroup) return `${threads} threads exceed the device's ${limits.maxComputeInvocationsPerWorkgroup} per workgroup`
  if (shape[0] > limits.maxComputeWorkgroupSizeX) return `workgroup x size ${shape[0]} exceeds the device's ${limits.maxComputeWorkgroupSizeX}`
  if (sharedBytes(kind, config) > limits.maxComputeWorkgroupStorageSize) {
    return `${sharedBytes(kind, config)} bytes of workgroup memory exceed the device's ${limits.maxComputeWorkgroupStorageSize}`
  }
  const groups = dispatchSize(kind, config, problem)
  if (Math.max(...groups) > limits.maxComputeWorkgroupsPerDimension) return `dispatch ${groups.join('x')} exceeds ${limits.maxComputeWorkgroupsPerDimension} workgroups per dimension`
  const biggest = Math.max(weightBytes(format, n, k), m * k * 4, m * n * 4)
  if (biggest > limits.maxStorageBufferBindingSize) return `a ${biggest}-byte buffer exceeds the device's ${limits.maxStorageBufferBindingSize}-byte binding limit`
  if (kind === 'gemv') {
    const perRow = Number(config.workgroupSize) / Number(config.rowsPerWorkgroup)
    const unroll = Number(config.unroll)
    if (nb % unroll !== 0) return `k/32=${nb} blocks is not a multiple of unroll=${unroll}`
    if (unroll > 1 && perRow * unroll > nb) return `unroll=${unroll} with ${perRow} threads per row needs more than the ${nb} blocks of a row (threads would idle)`
    return true
  }
  const { tileM, tileN, threadM, threadN } = config as Record<string, number>
  if (threadM! > tileM! || threadN! > tileN!) return 'threadM/threadN must not exceed tileM/tileN'
  if (threads < 16) return `${threads} threads per workgroup is below 16`
  if (tileM! > 2 * m && tileM! > 8) return `tileM=${tileM} is more than twice m=${m}`
  if (tileN! > n) return `tileN=${tileN} exceeds n=${n}`
  return true
}

/** Every valid configuration of the kernel for the problem, in a stable order. */
export function enumerateConfigs(kind: KernelKind, format: WeightFormat, problem: MatmulProblem, limits: DeviceLimits = DEFAULT_LIMITS): MatmulConfig[] {
  const params = kernelParameters(kind, format)
  const out: MatmulConfig[] = []
  const walk = (i: number, acc: MatmulConfig) => {
    if (i === params.length) {
      if (isValidConfig(kind, format, acc, problem, limits) === true) out.push({ ...acc })
      return
    }
    for (const v of params[i]!.values) walk(i + 1, { ...acc, [params[i]!.name]: v as number | boolean })
  }
  walk(0, {})
  return out
}

/** A stable key for a configuration, e.g. `rowsPerWorkgroup=2,unroll=1,...`. */
export function configKey(config: MatmulConfig): string {
  return Object.keys(config).sort().map((k) => `${k}=${String(config[k])}`).join(',')
}
