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

interface WeightBuffers { quants: GPUBuffer; scales?: GPUBuffer }

interface ProblemState {
  ref: ReferenceResult
  buffers: { params: GPUBuffer; quants: GPUBuffer; scales?: GPUBuffer; x: GPUBuffer; y: GPUBuffer }
  /** Copies of the weights for cold timing (coldBytes), made on first use; copy 0 is `buffers`. */
  copies: WeightBuffers[]
}

function release(st: ProblemState): void {
  for (const b of Object.values(st.buffers)) b?.destroy()
  for (const c of st.copies) { c.quants.destroy(); c.scales?.destroy() }
  st.copies = []
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
      for (const st of cache.values()) release(st)
      cache.clear()
    })
  }
  const key = problemKey(problem)
  const hit = perDevice.get(key)
  if (hit) return hit
  // Keep a few problems only: each holds its buffers on the device.
  if (perDevice.size >= 4) {
    const [oldKey, old] = perDevice.entries().next().value as [string, ProblemState]
    release(old)
    perDevice.delete(oldKey)
  }
  const { m, n, k, format } = problem
  const data = makeProblemData(problem, PROBLEM_SEED)
  const ref = referenceWithBounds(problem, data.weights, data.activations, verificationRows(problem))
  const gpuWeights = toGpuLayout(format, data.weights, n, k)
  const S = GPUBufferUsage.STORAGE
  // COPY_SRC: cold timing copies the weights on the device.
  const W = S | GPUBufferUsage.COPY_SRC
  const state: ProblemState = {
    ref,
    copies: [],
    buffers: {
      params: makeBuffer(gpu.device, new Uint32Array([m, n, k, k / 32]), GPUBufferUsage.UNIFORM),
      quants: makeBuffer(gpu.device, gpuWeights.quants, W),
      ...(gpuWeights.scales ? { scales: makeBuffer(gpu.device, gpuWeights.scales, W) } : {}),
      x: makeBuffer(gpu.device, data.activations, S),
      y: makeBuffer(gpu.device, new Float32Array(m * n), S | GPUBufferUsage.COPY_SRC),
    },
  }
  perDevice.set(key, state)
  return state
}

/** At least `count` extra copies of the problem's weights, made on the device (byte for byte). */
function weightCopies(gpu: GpuContext, state: ProblemState, count: number): WeightBuffers[] {
  const b = state.buffers
  if (state.copies.length >= count) return state.copies.slice(0, count)
  const enc = gpu.device.createCommandEncoder()
  for (let i = state.copies.length; i < count; i++) {
    const quants = gpu.device.createBuffer({ size: b.quants.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST })
    enc.copyBufferToBuffer(b.quants, 0, quants, 0, b.quants.size)
    let scales: GPUBuffer | undefined
    if (b.scales) {
      scales = gpu.device.createBuffer({ size: b.scales.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST })
      enc.copyBufferToBuffer(b.scales, 0, scales, 0, b.scales.size)
    }
    state.copies.push({ quants, ...(scales ? { scales } : {}) })
  }
  gpu.device.queue.submit([enc.finish()])
  return state.copies.slice(0, count)
}

/** The most weight copies cold timing makes: beyond this the weights alone exceed any cache. */
const MAX_WEIGHT_COPIES = 64

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
  /** Weight copies the timed runs rotate over (1: the weights as uploaded). */
  weightCopies: number
}

/**
 * Compiles the configuration and checks one run against the CPU reference. Never throws: an
 * invalid, failing or wrong configuration comes back as a `correct: false` result instead. With
 * `coldBytes`, the timed runs will rotate over copies of the weights holding at least that many
 * bytes together; a run on the last copy is checked against the reference too.
 */
export async function prepareKernel(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, config: MatmulConfig, opts: Pick<TimingOptions, 'coldBytes'> = {}): Promise<VerifiedKernel | { failed: KernelBenchResult }> {
  const { format, m, n, k } = problem
  const base: BaseResult = { kind, format, problem: { ...problem }, config: { ...config }, bytesMoved: weightBytes(format, n, k) + 4 * m * k + 4 * m * n, flops: 2 * m * n * k }
  try {
    const valid = isValidConfig(kind, format, config, problem, gpu.limits)
    if (valid !== true) return { failed: failed(base, `invalid configuration: ${valid}`) }
    const state = problemState(gpu, problem)
    const wgsl = generateWgsl(kind, format, config)
    const pipeline = await createPipeline(gpu.device, wgsl.code, wgsl.entryPoint)
    const b = state.buffers
    const group = (w: WeightBuffers) => gpu.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: b.params } },
        { binding: 1, resource: { buffer: w.quants } },
        ...(w.scales ? [{ binding: 2, resource: { buffer: w.scales } }] : []),
        { binding: 3, resource: { buffer: b.x } },
        { binding: 4, resource: { buffer: b.y } },
      ],
    })
    // One run (on the given weights) checked against the reference, or why it failed.
    const check = async (d: Dispatch, run: number): Promise<{ failed: KernelBenchResult } | { maxAbsError: number; tolerance: number }> => {
      // NaN first, so that a kernel that skips outputs cannot pass on a previous kernel's results.
      gpu.device.queue.writeBuffer(b.y, 0, new Float32Array(m * n).fill(NaN))
      await runOnce(gpu, d, run)
      const scoped = await gpu.device.popErrorScope()
      if (scoped) return { failed: failed(base, `dispatch failed: ${scoped.message}`) }
      const got = new Float32Array(await readBuffer(gpu.device, b.y, m * n * 4))
      const c = compareWithReference(state.ref, got, k)
      if (!c.correct) return { failed: failed(base, `wrong result${run ? ` on weight copy ${run}` : ''}: max |error| ${c.maxAbsError.toExponential(3)} over tolerance ${c.tolerance.toExponential(3)}`, c) }
      return { maxAbsError: c.maxAbsError, tolerance: c.tolerance }
    }
    gpu.device.pushErrorScope('validation')
    const d: Dispatch = { pipeline, bindGroup: group(b), groups: dispatchSize(kind, config, problem) }
    const first = await check(d, 0)
    if ('failed' in first) return first
    const onGpu = b.quants.size + (b.scales?.size ?? 0)
    const copies = opts.coldBytes ? Math.min(MAX_WEIGHT_COPIES, Math.max(2, Math.ceil(opts.coldBytes / onGpu))) : 1
    if (copies > 1) {
      d.rotate = [d.bindGroup, ...weightCopies(gpu, state, copies - 1).map(group)]
      gpu.device.pushErrorScope('validation')
      const last = await check(d, copies - 1)
      if ('failed' in last) return last
    }
    return { base, check: first, dispatch: d, weightCopies: copies }
  } catch (err) {
    return { failed: failed(base, err instanceof Error ? err.message : String(err)) }
  }
}

/** Times a verified kernel once more (warm-ups, then `iterations` runs), as a full result. */
export async function timeKernel(gpu: GpuContext, v: VerifiedKernel, opts: TimingOptions): Promise<KernelBenchResult> {
  const { latency, timing } = await timeDispatch(gpu, v.dispatch, opts)
  const seconds = latency.median / 1e3
  return {
    ...v.base, correct: true, ...v.check, latencyMs: latency, timing, gbps: v.base.bytesMoved / seconds / 1e9, gflops: v.base.flops / seconds / 1e9,
    ...(v.weightCopies > 1 ? { weightCopies: v.weightCopies } : {}),
  }
}

/**
 * Verifies the configuration against the CPU reference and, only if it is correct, times it.
 * Never throws: an invalid, failing or wrong configuration comes back with `correct: false`
 * (and `error` set when it did not compile or run, or was wrong).
 */
export async function benchmarkKernel(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, config: MatmulConfig, opts: TimingOptions): Promise<KernelBenchResult> {
  const v = await prepareKernel(gpu, kind, problem, config, opts)
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
