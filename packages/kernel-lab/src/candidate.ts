/**
 * A kernel candidate as the sandbox runs it: one self-contained ES module holding the WGSL and
 * the host code that uploads the problem, dispatches, reads the output back and times repeated
 * dispatches. The verdict is never the module's: the caller compares the returned output with
 * the CPU reference it computed itself (`checkKernelOutput`), with the tuned kernels' tolerance.
 */
import { compareWithReference, makeProblemData, PROBLEM_SEED, referenceWithBounds, toGpuLayout, weightBytes, type MatmulProblem, type ReferenceResult } from '@kerneltune/gpu-kernels'
import { z } from 'zod'

/**
 * `groups` is the dispatch for the problem it was written for; `per` (outputs n and activation
 * rows m per workgroup), when known, lets the module dispatch any other m and n, so a registry
 * kernel can be measured at a run's shapes (and verified there again).
 */
export interface KernelSpec { code: string; entryPoint: string; groups: [number, number, number]; per?: [number, number] }

/** The module source for a kernel: its WGSL and dispatch embedded, the shared host code around it. */
export function kernelModule(spec: KernelSpec): string {
  return `// kerneltune kernel candidate: WGSL plus host code; run by the kernel-lab sandbox.
const WGSL = ${JSON.stringify(spec.code)}
const ENTRY = ${JSON.stringify(spec.entryPoint)}
const GROUPS = ${JSON.stringify(spec.groups)}
const PER = ${JSON.stringify(spec.per ?? null)}

export default async function (ctx) {
  if (!ctx.gpu) throw new Error('this candidate needs WebGPU (run the sandbox with webgpu)')
  const { m, n, k, warmup, iterations } = ctx.input
  const groups = PER ? [Math.ceil(n / PER[0]), Math.ceil(m / PER[1]), 1] : GROUPS
  const adapter = await ctx.gpu.requestAdapter({ powerPreference: 'high-performance' })
  if (!adapter) throw new Error('no WebGPU adapter')
  const a = adapter.limits
  const device = await adapter.requestDevice({ requiredLimits: { maxComputeWorkgroupStorageSize: a.maxComputeWorkgroupStorageSize, maxStorageBufferBindingSize: a.maxStorageBufferBindingSize, maxBufferSize: a.maxBufferSize, maxComputeInvocationsPerWorkgroup: a.maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupSizeX: a.maxComputeWorkgroupSizeX } })
  const upload = (bytes, usage) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes.byteLength / 4) * 4), usage: usage | GPUBufferUsage.COPY_DST, mappedAtCreation: true })
    new Uint8Array(b.getMappedRange()).set(bytes)
    b.unmap()
    return b
  }
  const S = GPUBufferUsage.STORAGE
  const params = upload(new Uint8Array(new Uint32Array([m, n, k, k / 32]).buffer), GPUBufferUsage.UNIFORM)
  const quants = upload(ctx.readFile('quants.bin'), S)
  const scales = ctx.input.hasScales ? upload(ctx.readFile('scales.bin'), S) : null
  const x = upload(ctx.readFile('x.bin'), S)
  const y = upload(new Uint8Array(new Float32Array(m * n).fill(NaN).buffer), S | GPUBufferUsage.COPY_SRC)
  device.pushErrorScope('validation')
  const module = device.createShaderModule({ code: WGSL })
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: ENTRY } })
  const entries = [{ binding: 0, resource: { buffer: params } }, { binding: 1, resource: { buffer: quants } }]
  if (scales) entries.push({ binding: 2, resource: { buffer: scales } })
  entries.push({ binding: 3, resource: { buffer: x } }, { binding: 4, resource: { buffer: y } })
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries })
  const err = await device.popErrorScope()
  if (err) throw new Error('shader or pipeline invalid: ' + err.message)
  const run = async () => {
    const enc = device.createCommandEncoder()
    const pass = enc.beginComputePass()
    pass.setPipeline(pipeline)
    pass.setBindGroup(0, bindGroup)
    pass.dispatchWorkgroups(groups[0], groups[1], groups[2])
    pass.end()
    device.queue.submit([enc.finish()])
    await device.queue.onSubmittedWorkDone()
  }
  await run()
  const staging = device.createBuffer({ size: m * n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST })
  const enc = device.createCommandEncoder()
  enc.copyBufferToBuffer(y, 0, staging, 0, m * n * 4)
  device.queue.submit([enc.finish()])
  await staging.mapAsync(GPUMapMode.READ)
  const output = new Float32Array(staging.getMappedRange().slice(0))
  staging.unmap()
  for (let i = 0; i < warmup; i++) await run()
  const samplesMs = []
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now()
    await run()
    samplesMs.push(performance.now() - t0)
  }
  device.destroy()
  return { output, samplesMs }
}
`
}

export const KernelRunResultSchema: z.ZodObject<{ output: z.ZodArray<z.ZodNullable<z.ZodNumber>>; samplesMs: z.ZodArray<z.ZodNumber> }> = z.object({ output: z.array(z.number().nullable()), samplesMs: z.array(z.number()) })

/** The inputs a kernel candidate gets: the problem and timing as JSON, the data as files. */
export interface KernelInputs {
  input: { warmup: number; iterations: number; m: number; n: number; k: number; hasScales: boolean }
  files: { 'x.bin': Uint8Array; 'scales.bin'?: Uint8Array | undefined; 'quants.bin': Uint8Array }
  reference: () => ReferenceResult
}

/** Builds a candidate's {@link KernelInputs} for one problem. */
export function kernelInputs(problem: MatmulProblem, timing: { warmup: number; iterations: number }): KernelInputs {
  const data = makeProblemData(problem, PROBLEM_SEED)
  const gpu = toGpuLayout(problem.format, data.weights, problem.n, problem.k)
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  return {
    input: { m: problem.m, n: problem.n, k: problem.k, hasScales: Boolean(gpu.scales), ...timing },
    files: { 'quants.bin': bytes(gpu.quants), ...(gpu.scales ? { 'scales.bin': bytes(gpu.scales) } : {}), 'x.bin': bytes(data.activations) },
    reference: () => referenceWithBounds(problem, data.weights, data.activations),
  }
}

export interface Verification {
  correct: boolean
  maxAbsError: number
  tolerance: number
  /** Why it failed, when it did. */
  error?: string
}

export interface KernelTimings { samplesMs: number[]; medianMs: number; gbps: number; gflops: number; method: 'wall: submit to onSubmittedWorkDone, in the sandbox' }

/** Checks a sandbox result against the CPU reference (same tolerance as the tuned kernels). */
export function checkKernelOutput(problem: MatmulProblem, result: unknown, reference: ReturnType<ReturnType<typeof kernelInputs>['reference']>): { verification: Verification; timings?: KernelTimings } {
  const parsed = KernelRunResultSchema.safeParse(result)
  if (!parsed.success) return { verification: { correct: false, maxAbsError: NaN, tolerance: NaN, error: 'the candidate returned no { output, samplesMs }' } }
  const { output, samplesMs } = parsed.data
  if (output.length !== problem.m * problem.n) return { verification: { correct: false, maxAbsError: NaN, tolerance: NaN, error: `the candidate returned ${output.length} outputs, expected ${problem.m * problem.n}` } }
  const got = Float32Array.from(output, (v) => (v === null ? NaN : v))
  const check = compareWithReference(reference, got, problem.k)
  if (!check.correct) return { verification: { ...check, error: `wrong result: max |error| ${check.maxAbsError.toExponential(3)} over tolerance ${check.tolerance.toExponential(3)}` } }
  const sorted = [...samplesMs].sort((a, b) => a - b)
  const medianMs = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN
  const bytes = weightBytes(problem.format, problem.n, problem.k) + 4 * problem.m * problem.k + 4 * problem.m * problem.n
  const s = medianMs / 1e3
  return { verification: check, timings: { samplesMs, medianMs, gbps: bytes / s / 1e9, gflops: (2 * problem.m * problem.n * problem.k) / s / 1e9, method: 'wall: submit to onSubmittedWorkDone, in the sandbox' } }
}
