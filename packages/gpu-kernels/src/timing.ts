/// <reference types="@webgpu/types" />
/**
 * Timing of one compute dispatch: warm-ups, then repetitions timed with GPU timestamp queries
 * (begin/end of each pass) when the device offers them, else with the wall time from submit to
 * `onSubmittedWorkDone`.
 */
import type { GpuContext } from './gpu.ts'
import type { LatencyStats, TimingOptions } from './types.ts'

export interface Dispatch {
  pipeline: GPUComputePipeline
  bindGroup: GPUBindGroup
  groups: [number, number, number]
  /**
   * Bind groups the runs of a batch take in turn (run i uses rotate[i % length]): each holds its
   * own copy of the weights, so a run cannot find the previous run's weights in the GPU's cache.
   */
  rotate?: GPUBindGroup[]
}

function encodePass(enc: GPUCommandEncoder, d: Dispatch, run: number, timestampWrites?: GPUComputePassTimestampWrites): void {
  const pass = enc.beginComputePass(timestampWrites ? { timestampWrites } : {})
  pass.setPipeline(d.pipeline)
  pass.setBindGroup(0, d.rotate?.length ? d.rotate[run % d.rotate.length]! : d.bindGroup)
  pass.dispatchWorkgroups(...d.groups)
  pass.end()
}

export async function runOnce(gpu: GpuContext, d: Dispatch, run = 0): Promise<void> {
  const enc = gpu.device.createCommandEncoder()
  encodePass(enc, d, run)
  gpu.device.queue.submit([enc.finish()])
  await gpu.device.queue.onSubmittedWorkDone()
}

export function stats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b)
  const n = sorted.length
  const median = n === 0 ? NaN : n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
  const mean = n === 0 ? NaN : samples.reduce((a, b) => a + b, 0) / n
  return { mean, median, min: sorted[0] ?? NaN, samples }
}

async function timestampSamples(gpu: GpuContext, d: Dispatch, iterations: number): Promise<number[]> {
  const { device } = gpu
  const count = 2 * iterations
  const querySet = device.createQuerySet({ type: 'timestamp', count })
  const resolve = device.createBuffer({ size: count * 8, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC })
  const read = device.createBuffer({ size: count * 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST })
  try {
    const enc = device.createCommandEncoder()
    for (let i = 0; i < iterations; i++) {
      encodePass(enc, d, i, { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 })
    }
    enc.resolveQuerySet(querySet, 0, count, resolve, 0)
    enc.copyBufferToBuffer(resolve, 0, read, 0, count * 8)
    device.queue.submit([enc.finish()])
    await read.mapAsync(GPUMapMode.READ)
    const ticks = new BigUint64Array(read.getMappedRange().slice(0))
    read.unmap()
    const out: number[] = []
    for (let i = 0; i < iterations; i++) out.push(Number(ticks[2 * i + 1]! - ticks[2 * i]!) / 1e6)
    return out
  } finally {
    querySet.destroy()
    resolve.destroy()
    read.destroy()
  }
}

async function wallSamples(gpu: GpuContext, d: Dispatch, iterations: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < iterations; i++) {
    const enc = gpu.device.createCommandEncoder()
    encodePass(enc, d, i)
    const t0 = performance.now()
    gpu.device.queue.submit([enc.finish()])
    await gpu.device.queue.onSubmittedWorkDone()
    out.push(performance.now() - t0)
  }
  return out
}

/** Times a dispatch. Timestamps that come back zero or negative (some drivers) fall back to wall time. */
export async function timeDispatch(gpu: GpuContext, d: Dispatch, opts: TimingOptions): Promise<{ latency: LatencyStats; timing: 'timestamp' | 'wall' }> {
  const iterations = Math.max(1, Math.floor(opts.iterations))
  for (let i = 0; i < Math.max(0, Math.floor(opts.warmup)); i++) await runOnce(gpu, d, i)
  if (gpu.hasTimestamps) {
    const samples = await timestampSamples(gpu, d, iterations)
    if (samples.every((s) => Number.isFinite(s) && s > 0)) return { latency: stats(samples), timing: 'timestamp' }
  }
  return { latency: stats(await wallSamples(gpu, d, iterations)), timing: 'wall' }
}
