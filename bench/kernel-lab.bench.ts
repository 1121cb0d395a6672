// @bench-runtime node  (every kernel runs in the kernel-lab Deno sandbox; Node drives it)
/**
 * Tier 3 kernel benchmark: do the template provider's GEMV and GEMM variants beat the best tuned
 * configuration of the same kernel on this machine, and how close does each kernel come to the
 * device's roofline?
 *
 * In one run, with one timing method for everything (the sandbox's wall time from submit to
 * onSubmittedWorkDone, median of ITER dispatches after warm-ups):
 * - both device ceilings: copy bandwidth (a vec4 copy kernel, read + write bytes) and FMA
 *   throughput (a register-only kernel of independent vec4 fma chains);
 * - the tuned kernels: an even sample of the valid configurations plus the default, each
 *   verified against the CPU reference before it counts;
 * - the template variants, verified the same way.
 * Each kernel's fraction of the attainable roofline: achieved GFLOP/s over
 * min(FMA GFLOP/s, copy GB/s x arithmetic intensity).
 * Writes bench/results/kernel-lab.json.   Run: pnpm bench kernel-lab   (or: npx tsx bench/kernel-lab.bench.ts)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { configKey, defaultConfig, DEFAULT_LIMITS, dispatchSize, enumerateConfigs, generateWgsl, weightBytes, type MatmulProblem, type WeightFormat } from '@kerneltune/gpu-kernels'
import { gemmTemplates, gemvTemplates, kernelModule } from '@kerneltune/kernel-lab'
import { runInSandbox, verifyInSandbox } from '@kerneltune/kernel-lab/node'

const FORMATS: WeightFormat[] = process.argv.includes('--all-formats') ? ['q4_0', 'q8_0', 'f16'] : ['q4_0']
const SIZES = { gemv: { m: 1, n: 2048, k: 2048 }, gemm: { m: 32, n: 256, k: 512 } } as const
const timing = { warmup: 3, iterations: 10 }
const MAX_TUNED = 12
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2 }

// Ceilings run in the same sandbox with the same wall-clock method as the kernels.
function ceilingModule(code: string, groups: [number, number, number], bytes: number): string {
  return `export default async (ctx) => {
  const adapter = await ctx.gpu.requestAdapter(); const device = await adapter.requestDevice()
  const a = device.createBuffer({ size: ${bytes}, usage: GPUBufferUsage.STORAGE })
  const b = device.createBuffer({ size: ${bytes}, usage: GPUBufferUsage.STORAGE })
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module: device.createShaderModule({ code: ${JSON.stringify(code)} }), entryPoint: 'main' } })
  const bg = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: a } }, { binding: 1, resource: { buffer: b } }] })
  const run = async () => { const e = device.createCommandEncoder(); const p = e.beginComputePass(); p.setPipeline(pipeline); p.setBindGroup(0, bg); p.dispatchWorkgroups(${groups.join(', ')}); p.end(); device.queue.submit([e.finish()]); await device.queue.onSubmittedWorkDone() }
  for (let i = 0; i < ctx.input.warmup; i++) await run()
  const samplesMs = []
  for (let i = 0; i < ctx.input.iterations; i++) { const t = performance.now(); await run(); samplesMs.push(performance.now() - t) }
  return { samplesMs }
}`
}

const COPY_BYTES = 32 << 20
const copyCode = `@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
  let i = g.y * ng.x * 256u + g.x; if (i < arrayLength(&src)) { dst[i] = src[i]; } }`
const copyGroups = COPY_BYTES / 16 / 256
const FMA_THREADS = 64 * 256
const FMA_ITERS = 4096
// 8 independent vec4 chains per thread: 8 x 4 lanes x 2 flops per fma per iteration.
const fmaCode = `@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let s = f32(g.x) * 1e-7;
  var a0 = vec4<f32>(s); var a1 = a0 + 0.1; var a2 = a0 + 0.2; var a3 = a0 + 0.3; var a4 = a0 + 0.4; var a5 = a0 + 0.5; var a6 = a0 + 0.6; var a7 = a0 + 0.7;
  let m = vec4<f32>(0.9999); let c = vec4<f32>(1e-4);
  for (var i = 0u; i < ${FMA_ITERS}u; i++) {
    a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c); a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
  }
  dst[g.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7; }`

async function ceiling(code: string, groups: [number, number, number], bytes: number): Promise<number[]> {
  const r = await runInSandbox(ceilingModule(code, groups, bytes), { input: timing, limits: { webgpu: true, timeoutMs: 120_000, memoryMb: 1024 } })
  if (!r.ok) throw new Error(`ceiling kernel failed in the sandbox: ${r.outcome} ${r.error?.message}`)
  return (r.result as { samplesMs: number[] }).samplesMs
}

const copySamples = await ceiling(copyCode, [copyGroups, 1, 1], COPY_BYTES)
const copyGbps = (2 * COPY_BYTES) / (median(copySamples) / 1e3) / 1e9
const fmaSamples = await ceiling(fmaCode, [FMA_THREADS / 64, 1, 1], FMA_THREADS * 16)
const fmaGflops = (FMA_THREADS * FMA_ITERS * 8 * 4 * 2) / (median(fmaSamples) / 1e3) / 1e9
console.error(`ceilings: copy ${copyGbps.toFixed(2)} GB/s, FMA ${fmaGflops.toFixed(2)} GFLOP/s (median of ${timing.iterations}, sandbox wall time)`)

const families = []
for (const kind of ['gemv', 'gemm'] as const) for (const format of FORMATS) {
  const problem: MatmulProblem = { format, ...SIZES[kind] }
  const bytes = weightBytes(format, problem.n, problem.k) + 4 * problem.m * problem.k + 4 * problem.m * problem.n
  const flops = 2 * problem.m * problem.n * problem.k
  const ai = flops / bytes
  const attainable = Math.min(fmaGflops, copyGbps * ai)
  const all = enumerateConfigs(kind, format, problem, DEFAULT_LIMITS)
  const sample = Array.from({ length: Math.min(MAX_TUNED, all.length) }, (_, j) => all[Math.floor((j * all.length) / Math.min(MAX_TUNED, all.length))]!)
  const def = defaultConfig(kind, format)
  if (!sample.some((c) => configKey(c) === configKey(def))) sample.unshift(def)
  const kernels: { source: 'tuned' | 'template'; name: string; description?: string; verified: boolean; error?: string; medianMs?: number; gbps?: number; gflops?: number; fractionOfCopy?: number; fractionOfRoofline?: number }[] = []
  const candidates = [
    ...sample.map((c) => { const w = generateWgsl(kind, format, c); return { source: 'tuned' as const, name: configKey(c), module: kernelModule({ code: w.code, entryPoint: w.entryPoint, groups: dispatchSize(kind, c, problem) }) } }),
    ...(kind === 'gemv' ? gemvTemplates(problem, DEFAULT_LIMITS) : gemmTemplates(problem)).map((v) => ({ source: 'template' as const, name: v.template, description: v.description, module: kernelModule(v) })),
  ]
  for (const c of candidates) {
    const r = await verifyInSandbox(c.module, problem, { timing })
    const t = r.timings
    kernels.push({
      source: c.source, name: c.name, ...('description' in c ? { description: c.description } : {}), verified: r.verified,
      ...(r.verified && t ? { medianMs: t.medianMs, gbps: t.gbps, gflops: t.gflops, fractionOfCopy: t.gbps / copyGbps, fractionOfRoofline: t.gflops / attainable } : { error: r.verification.error }),
    })
    console.error(`${kind} ${format} ${c.source} ${c.name}: ${r.verified ? `${t!.medianMs.toFixed(3)} ms, ${(100 * t!.gflops / attainable).toFixed(1)}% of roofline` : `failed: ${r.verification.error}`}`)
  }
  const best = (s: 'tuned' | 'template') => kernels.filter((k) => k.source === s && k.verified).sort((a, b) => a.medianMs! - b.medianMs!)[0]
  const bt = best('tuned')
  const bv = best('template')
  families.push({
    kernel: kind, format, problem, bytesMoved: bytes, flops, arithmeticIntensity: ai, attainableGflops: attainable,
    bound: copyGbps * ai < fmaGflops ? 'memory' : 'compute',
    bestTuned: bt, bestTemplate: bv,
    templateBeatsTuned: Boolean(bt && bv && bv.medianMs! < bt.medianMs!),
    templateSpeedupOverTuned: bt && bv ? bt.medianMs! / bv.medianMs! : undefined,
    kernels,
  })
  console.log(`${kind} ${format} ${problem.m}x${problem.n}x${problem.k}: AI ${ai.toFixed(2)} flop/B, attainable ${attainable.toFixed(2)} GFLOP/s (${copyGbps * ai < fmaGflops ? 'memory' : 'compute'}-bound); best tuned ${bt?.name} ${bt?.medianMs?.toFixed(3)} ms (${(100 * (bt?.fractionOfRoofline ?? 0)).toFixed(1)}% of roofline); best template ${bv?.name} ${bv?.medianMs?.toFixed(3)} ms (${(100 * (bv?.fractionOfRoofline ?? 0)).toFixed(1)}%); template ${bt && bv && bv.medianMs! < bt.medianMs! ? 'beats' : 'does not beat'} tuned: x${(bt && bv ? bt.medianMs! / bv.medianMs! : NaN).toFixed(2)}`)
}

const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'kernel-lab.json')
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify({
  benchmark: 'kernel-lab', date: new Date().toISOString(),
  device: 'WebGPU under Deno in the kernel-lab sandbox (on this machine: Mesa lavapipe on the CPU)',
  timing: { ...timing, method: 'wall time from submit to onSubmittedWorkDone, median, in the sandbox; the same for ceilings, tuned and template kernels' },
  ceilings: { copyGbps, copyBytes: COPY_BYTES, copySamplesMs: copySamples, fmaGflops, fmaSamplesMs: fmaSamples, fmaFlops: FMA_THREADS * FMA_ITERS * 64 },
  families,
}, null, 2) + '\n')
console.error(`wrote ${out}`)
