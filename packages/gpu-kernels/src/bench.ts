/// <reference types="@webgpu/types" />
/**
 * benchmarkKernel: verify one configuration against the CPU reference, then time it.
 * measureCopyBandwidth: the copy-kernel ceiling kernels are compared against.
 */
import { generateWgsl } from './codegen.ts'
import { toGpuLayout, weightBytes } from './formats.ts'
import { createPipeline, makeBuffer, onCloseGpu, readBuffer, type GpuContext } from './gpu.ts'
import { dispatchSize, isValidConfig } from './params.ts'
import { compareWithReference, makeProblemData, referenceWithBounds, verificationRows, type ReferenceResult } from './reference.ts'
import { runOnce, timeDispatch, type Dispatch } from './timing.ts'
import type { CopyBandwidth, KernelBenchResult, KernelKind, MatmulConfig, MatmulProblem, TimingOptions } from './types.ts'

/** The seed of the data every benchmark verifies and times with. */
export const PROBLEM_SEED = 1234

interface ProblemState {
  ref: ReferenceResult
  buffers: { params: GPUBuffer; quants: GPUBuffer; scales?: GPUBuffer; x: GPUBuffer; y: GPUBuffer }
}

// Data, reference and GPU buffers are reused across the configurations of one problem: the
// reference of a prefill problem takes seconds on the CPU, and uploads would dominate tuning.
const states = new WeakMap<GPUDevice, Map<string, ProblemState>>()

function problemKey(p: MatmulProblem): string {
  return `${p.format}:${p.m}x${p.n}x${p.k}`
}

function problemState(gpu: GpuContext, problem: MatmulProblem): ProblemState {
  let perDevice = states.get(gpu.device)
  if (!perDevice) {
    const cache = (perDevice = new Map<string, ProblemState>())
    states.set(gpu.device, cache)
    // closeGpu destroys these buffers before the device, not the garbage collector after it.
    onCloseGpu(gpu.device, () => {
      for (const st of cache.values()) for (const b of Object.values(st.buffers)) b?.destroy()
      cache.clear()
    })
  }
  const key = problemKey(problem)
  const hit = perDevice.get(key)
  if (hit) return hit
  // Keep a few problems only: each holds its buffers on the device.
  if (perDevice.size >= 4) {
    const [oldKey, old] = perDevice.entries().next().value as [string, ProblemState]
    for (const b of Object.values(old.buffers)) b?.destroy()
    perDevice.delete(oldKey)
  }
  const { m, n, k, format } = problem
  const data = makeProblemData(problem, PROBLEM_SEED)
  const ref = referenceWithBounds(problem, data.weights, data.activations, verificationRows(problem))
  const gpuWeights = toGpuLayout(format, data.weights, n, k)
  const S = GPUBufferUsage.STORAGE
  const state: ProblemState = {
    ref,
    buffers: {
      params: makeBuffer(gpu.device, new Uint32Array([m, n, k, k / 32]), GPUBufferUsage.UNIFORM),
      quants: makeBuffer(gpu.device, gpuWeights.quants, S),
      ...(gpuWeights.scales ? { scales: makeBuffer(gpu.device, gpuWeights.scales, S) } : {}),
      x: makeBuffer(gpu.device, data.activations, S),
      y: makeBuffer(gpu.device, new Float32Array(m * n), S | GPUBufferUsage.COPY_SRC),
    },
  }
  perDevice.set(key, state)
  return state
}

type BaseResult = Omit<KernelBenchResult, 'correct' | 'maxAbsError' | 'tolerance' | 'latencyMs' | 'timing' | 'gbps' | 'gflops'>

function failed(base: BaseResult, error: string, check?: { maxAbsError: number; tolerance: number }): KernelBenchResult {
  return {
    ...base,
    correct: false,
    maxAbsError: check?.maxAbsError ?? NaN,
    tolerance: check?.tolerance ?? NaN,
    latencyMs: { mean: NaN, median: NaN, min: NaN, samples: [] },
    timing: 'wall',
    gbps: 0,
    gflops: 0,
    error,
  }
}

/** A configuration that compiled, ran and matched the CPU reference, ready to be timed again and again. */
export interface VerifiedKernel {
  base: BaseResult
  check: { maxAbsError: number; tolerance: number }
  dispatch: Dispatch
}

/**
 * Compiles the configuration and checks one run against the CPU reference. Never throws: an
 * invalid, failing or wrong configuration comes back as a `correct: false` result instead.
 */
export async function prepareKernel(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, config: MatmulConfig): Promise<VerifiedKernel | { failed: KernelBenchResult }> {
  const { format, m, n, k } = problem
  const base: BaseResult = { kind, format, problem: { ...problem }, config: { ...config }, bytesMoved: weightBytes(format, n, k) + 4 * m * k + 4 * m * n, flops: 2 * m * n * k }
  try {
    const valid = isValidConfig(kind, format, config, problem, gpu.limits)
    if (valid !== true) return { failed: failed(base, `invalid configuration: ${valid}`) }
    const state = problemState(gpu, problem)
    const wgsl = generateWgsl(kind, format, config)
    const pipeline = await createPipeline(gpu.device, wgsl.code, wgsl.entryPoint)
    const b = state.buffers
    const entries: GPUBindGroupEntry[] = [
      { binding: 0, resource: { buffer: b.params } },
      { binding: 1, resource: { buffer: b.quants } },
      ...(b.scales ? [{ binding: 2, resource: { buffer: b.scales } }] : []),
      { binding: 3, resource: { buffer: b.x } },
      { binding: 4, resource: { buffer: b.y } },
    ]
    gpu.device.pushErrorScope('validation')
    const bindGroup = gpu.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries })
    const d: Dispatch = { pipeline, bindGroup, groups: dispatchSize(kind, config, problem) }
    // NaN first, so that a kernel that skips outputs cannot pass on a previous kernel's results.
    gpu.device.queue.writeBuffer(b.y, 0, new Float32Array(m * n).fill(NaN))
    await runOnce(gpu, d)
    const scoped = await gpu.device.popErrorScope()
    if (scoped) return { failed: failed(base, `dispatch failed: ${scoped.message}`) }
    const got = new Float32Array(await readBuffer(gpu.device, b.y, m * n * 4))
    const check = compareWithReference(state.ref, got, k)
    if (!check.correct) return { failed: failed(base, `wrong result: max |error| ${check.maxAbsError.toExponential(3)} over tolerance ${check.tolerance.toExponential(3)}`, check) }
    return { base, check: { maxAbsError: check.maxAbsError, tolerance: check.tolerance }, dispatch: d }
  } catch (err) {
    return { failed: failed(base, err instanceof Error ? err.message : String(err)) }
  }
}

/** Times a verified kernel once more (warm-ups, then `iterations` runs), as a full result. */
export async function timeKernel(gpu: GpuContext, v: VerifiedKernel, opts: TimingOptions): Promise<KernelBenchResult> {
  const { latency, timing } = await timeDispatch(gpu, v.dispatch, opts)
  const seconds = latency.median / 1e3
  return { ...v.base, correct: true, ...v.check, latencyMs: latency, timing, gbps: v.base.bytesMoved / seconds / 1e9, gflops: v.base.flops / seconds / 1e9 }
}

/**
 * Verifies the configuration against the CPU reference and, only if it is correct, times it.
 * Never throws: an invalid, failing or wrong configuration comes back with `correct: false`
 * (and `error` set when it did not compile or run, or was wrong).
 */
export async function benchmarkKernel(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, config: MatmulConfig, opts: TimingOptions): Promise<KernelBenchResult> {
  const v = await prepareKernel(gpu, kind, problem, config)
  if ('failed' in v) return v.failed
  try {
    return await timeKernel(gpu, v, opts)
  } catch (err) {
    return failed(v.base, err instanceof Error ? err.message : String(err))
  }
}

const COPY_WG = 256
const COPY_WGSL = `@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(${COPY_WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
  let i = gid.y * ng.x * ${COPY_WG}u + gid.x;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
`

/**
 * The copy ceiling: a vec4<f32> copy of `bytes` bytes (rounded up to 16), timed like the kernels.
 * gbps counts the read and the write. The copy is checked before it is timed.
 */
export async function measureCopyBandwidth(gpu: GpuContext, bytes: number, opts: TimingOptions): Promise<CopyBandwidth> {
  const { device } = gpu
  const size = Math.min(Math.max(16, Math.ceil(bytes / 16) * 16), gpu.limits.maxStorageBufferBindingSize)
  const init = new Uint32Array(size / 4)
  for (let i = 0; i < init.length; i++) init[i] = (i * 2654435761) >>> 0
  const src = makeBuffer(device, init, GPUBufferUsage.STORAGE)
  const dst = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC })
  try {
    const pipeline = await createPipeline(device, COPY_WGSL, 'main')
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] })
    const groups = Math.ceil(size / 16 / COPY_WG)
    const x = Math.min(groups, 32768)
    const d: Dispatch = { pipeline, bindGroup, groups: [x, Math.ceil(groups / x), 1] }
    await runOnce(gpu, d)
    const back = new Uint32Array(await readBuffer(device, dst, size))
    for (let i = 0; i < back.length; i += Math.max(1, Math.floor(back.length / 4096))) {
      if (back[i] !== init[i]) throw new Error(`copy kernel wrote a wrong value at word ${i}`)
    }
    if (back[back.length - 1] !== init[init.length - 1]) throw new Error('copy kernel missed the end of the buffer')
    const { latency } = await timeDispatch(gpu, d, opts)
    return { gbps: (2 * size) / (latency.median / 1e3) / 1e9, latencyMs: latency.median, bytes: size }
  } finally {
    src.destroy()
    dst.destroy()
  }
}
