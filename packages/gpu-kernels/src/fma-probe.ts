/// <reference types="@webgpu/types" />
/**
 * The compute ceiling GEMM kernels are compared against: an f32 fused multiply-add probe, the
 * arithmetic counterpart of measureCopyBandwidth. Every thread runs ACCUMULATORS independent vec4
 * FMA chains (enough independent work to hide the FMA latency), with a multiplier and an addend
 * read from a uniform so the compiler cannot fold the chain. With multiplier 1 and addend 1 each
 * lane ends at its start value + steps exactly, which is checked before timing,
 * so a driver that skipped work cannot pass. It measures plain f32 FMA throughput, the rate a
 * WGSL kernel without cooperative matrices can reach: no tensor cores.
 */
import { createPipeline, makeBuffer, readBuffer, type GpuContext } from './gpu.ts'
import { timeDispatch, type Dispatch } from './timing.ts'
import type { TimingOptions } from './types.ts'

/** The probe's shape: threads per workgroup, independent vec4 chains per thread. */
export const FMA_PROBE = { workgroupSize: 256, accumulators: 8 } as const

export interface FmaThroughput {
  /** 2 FLOP per lane per FMA over the median latency, in 1e9 per second. */
  gflops: number
  latencyMs: number
  workgroups: number
  /** FMA steps per chain. */
  steps: number
  flops: number
}

function probeWgsl(): string {
  const { workgroupSize: wg, accumulators: a } = FMA_PROBE
  const decl = Array.from({ length: a }, (_, i) => `  var a${i} = vec4<f32>(f32(${4 * i}u + 0u), f32(${4 * i}u + 1u), f32(${4 * i}u + 2u), f32(${4 * i}u + 3u));`).join('\n')
  const step = Array.from({ length: a }, (_, i) => `    a${i} = fma(a${i}, mv, cv);`).join('\n')
  const sum = Array.from({ length: a }, (_, i) => `a${i}`).join(' + ')
  return `struct P { steps: u32, mul: f32, add: f32, pad: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
  let mv = vec4<f32>(p.mul);
  let cv = vec4<f32>(p.add);
${decl}
  for (var i = 0u; i < p.steps; i++) {
${step}
  }
  out[gid.y * ng.x * ${wg}u + gid.x] = ${sum};
}
`
}

/**
 * Times the probe over `workgroups` workgroups of FMA_PROBE.workgroupSize threads, each chain
 * `steps` FMAs long (capped so that the sum over the accumulators stays below 2^24, where f32
 * counts exactly). Throws if the result is wrong.
 */
export async function measureFmaThroughput(gpu: GpuContext, opts: TimingOptions & { workgroups: number; steps: number }): Promise<FmaThroughput> {
  const { device } = gpu
  const { workgroupSize: wg, accumulators: acc } = FMA_PROBE
  const steps = Math.min(Math.max(1, Math.floor(opts.steps)), Math.floor(2 ** 24 / acc) - 64)
  const groups = Math.max(1, Math.floor(opts.workgroups))
  const x = Math.min(groups, gpu.limits.maxComputeWorkgroupsPerDimension)
  const y = Math.ceil(groups / x)
  const threads = x * y * wg
  const params = new ArrayBuffer(16)
  new Uint32Array(params, 0, 1)[0] = steps
  new Float32Array(params, 4, 2).set([1, 1])
  const uniform = makeBuffer(device, new Uint8Array(params), GPUBufferUsage.UNIFORM)
  const out = device.createBuffer({ size: threads * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC })
  try {
    const pipeline = await createPipeline(device, probeWgsl(), 'main')
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: uniform } }, { binding: 1, resource: { buffer: out } }] })
    const d: Dispatch = { pipeline, bindGroup, groups: [x, y, 1] }
    const { latency } = await timeDispatch(gpu, d, opts)
    // Lane l of every thread: Σ_i (4i + l + steps) over the accumulators.
    const back = new Float32Array(await readBuffer(device, out, threads * 16))
    for (let l = 0; l < 4; l++) {
      let want = 0
      for (let i = 0; i < acc; i++) want += 4 * i + l + steps
      for (const t of [0, threads >> 1, threads - 1]) {
        if (back[4 * t + l] !== Math.fround(want)) throw new Error(`the FMA probe computed ${back[4 * t + l]} at thread ${t} lane ${l}, expected ${want}: the device skipped or miscomputed work`)
      }
    }
    const flops = threads * steps * acc * 4 * 2
    return { gflops: flops / (latency.median / 1e3) / 1e9, latencyMs: latency.median, workgroups: x * y, steps, flops }
  } finally {
    uniform.destroy()
    out.destroy()
  }
}
