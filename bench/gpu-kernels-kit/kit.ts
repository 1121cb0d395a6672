/**
 * The kernels kit's script (issue 40), run by Deno's WebGPU on whatever adapter Vulkan offers: a
 * lent GPU, or Mesa's lavapipe in CI. It prints the adapter, runs the correctness suite (every
 * kernel and format, a sample of configurations, against the CPU reference), the copy-bandwidth
 * and FP32 FMA probes, the gpu-kernels autotuner on an 8B model's decode (GEMV) and prefill
 * (GEMM) shapes for Q4_0, Q8_0, F16, q2_0 and q3_0 with each winner re-timed against the default,
 * then the Metal-Marlin-style autotuner on the same model, within a budget: what would not fit is
 * listed as skipped, never cut mid-figure. Writes results.json (ResultsSchema) and results.md.
 *
 *   deno run -A kit.mjs --out DIR [--host host.json] [--budget-s 270] [--quick]
 *
 * Exit codes: 0 figures written and the correctness suite passed; 1 the suite failed or nothing
 * was measured; 2 bad arguments; 3 no WebGPU adapter.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseWith } from '@kerneltune/core'
import {
  KERNEL_KINDS, WEIGHT_FORMATS, benchmarkKernel, closeGpu, configKey, defaultConfig, deviceName, enumerateConfigs, measureCopyBandwidth,
  measureFmaThroughput, openGpu, tuneKernel, verificationRows, type GpuContext, type KernelBenchResult,
} from '@kerneltune/gpu-kernels'
import { runAutotuneJob, type AutotuneJob, type CellSummary } from '@kerneltune/metal-marlin-autotune/webgpu'
import { uptimeLine } from '../support/load.ts'
import { CORRECTNESS_PROBLEMS, LLAMA3_8B, SHAPES, evenSample, fits, planTasks, settingsFor, type KitMode, type KitSettings, type KitTask } from './plan.ts'
import { profileQ4Gemv } from './profile.ts'
import { markdown } from './report.ts'
import { HostInfoSchema, ResultsSchema, type HostInfo, type KernelRow, type KitResults } from './schema.ts'

const say = (s: string) => console.error(`kernels-kit: ${s}`)

interface Args { out: string; host?: string; budgetS: number; mode: KitMode }

export function parseArgs(argv: readonly string[]): Args | string {
  const val = (flag: string) => { const i = argv.indexOf(flag); return i >= 0 ? argv[i + 1] : undefined }
  const out = val('--out')
  if (!out) return '--out DIR is required'
  const budgetS = Number(val('--budget-s') ?? 270)
  if (!(budgetS > 0)) return `--budget-s expects a positive number of seconds, got "${val('--budget-s')}"`
  const host = val('--host')
  return { out, budgetS, mode: argv.includes('--quick') ? 'quick' : 'full', ...(host ? { host } : {}) }
}

/**
 * The GPU libraries this process really loaded (/proc/self/maps on Linux): which Vulkan loader won
 * the search (the system's or the kit's), which driver it chose, and so which backend wgpu used.
 * Deno's WebGPU falls back to OpenGL (EGL) when Vulkan offers no driver, and WebGPU does not say
 * which backend an adapter is on: with Vulkan's drivers disabled, lavapipe's llvmpipe came back
 * through Mesa's GL under the same name, and no Vulkan loader stayed mapped. wgpu opens its GL
 * backend beside Vulkan either way (EGL libraries are mapped in both cases) and ranks Vulkan's
 * adapters first among adapters of the same type, so a mapped loader means Vulkan.
 */
export function mappedGpuLibraries(maps: string): { loader: string | null; drivers: string[]; backend: 'vulkan' | 'gl' | 'unknown' } {
  const files = new Set(maps.split('\n').map((l) => l.trim().split(/\s+/).slice(5).join(' ')).filter((f) => f.startsWith('/')))
  const all = [...files]
  const loader = all.find((f) => /\/libvulkan\.so[.\d]*$/.test(f)) ?? null
  const gl = all.some((f) => /\/libEGL[^/]*\.so/.test(f))
  return {
    loader,
    drivers: all.filter((f) => /libvulkan_[a-z_]+\.so|libGLX_nvidia|libEGL_nvidia|libnvidia-glvkspirv|libnvidia-gpucomp|libEGL_mesa|libgallium|_dri\.so/.test(f)).sort(),
    backend: loader ? 'vulkan' : gl ? 'gl' : 'unknown',
  }
}

function readMaps(): string {
  try { return readFileSync('/proc/self/maps', 'utf8') } catch { return '' }
}

/** Without run.sh (a developer's `deno run`), what the script can tell about the host itself. */
function hostFallback(): HostInfo {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno ?? 'unknown'
  return {
    gpu: null, driver: null, driverSource: 'not recorded: run through run.sh', vulkan: { loader: null, loaderSource: 'none', icds: [] },
    os: 'unknown', cpu: 'unknown', kit: { deno, kerneltuneCommit: 'unknown', dirty: false, packedAt: 'not packed' }, argv: 'kit.ts',
  }
}

function figure(r: KernelBenchResult | undefined, ceiling: number | null, kind: 'gemv' | 'gemm') {
  if (!r?.correct) return null
  const value = kind === 'gemv' ? r.gbps : r.gflops
  return { config: r.config, configKey: configKey(r.config), medianMs: r.latencyMs.median, gbps: r.gbps, tflops: r.gflops / 1e3, fraction: ceiling ? value / ceiling : null, weightCopies: r.weightCopies ?? 1 }
}

async function correctnessSuite(gpu: GpuContext, s: KitSettings): Promise<KitResults['correctness']> {
  const families: KitResults['correctness']['families'] = []
  for (const kind of KERNEL_KINDS) {
    for (const format of WEIGHT_FORMATS) {
      const problem = { format, ...CORRECTNESS_PROBLEMS[kind] }
      const def = defaultConfig(kind, format)
      const configs = evenSample(enumerateConfigs(kind, format, problem, gpu.limits), s.correctnessConfigs, (a, b) => configKey(a) === configKey(b), def)
      const failures: { config: string; error: string }[] = []
      for (const c of configs) {
        const r = await benchmarkKernel(gpu, kind, problem, c, { warmup: 0, iterations: 1 })
        if (!r.correct) failures.push({ config: configKey(c), error: r.error ?? 'wrong result' })
      }
      families.push({ kind, format, problem: CORRECTNESS_PROBLEMS[kind], tried: configs.length, correct: configs.length - failures.length, failures })
      say(`correctness ${kind} ${format}: ${configs.length - failures.length}/${configs.length}`)
    }
  }
  const tried = families.reduce((a, f) => a + f.tried, 0)
  const correct = families.reduce((a, f) => a + f.correct, 0)
  return { passed: tried > 0 && correct === tried, tried, correct, families }
}

async function tuneTask(gpu: GpuContext, t: KitTask, s: KitSettings, ceilings: { copy: number | null; fma: number | null }): Promise<KernelRow> {
  const t0 = performance.now()
  const problem = { format: t.format, m: t.m, n: t.n, k: t.k }
  const r = await tuneKernel(gpu, t.kind, problem, { warmup: s.warmup, iterations: s.iterations, maxConfigs: s.maxConfigs, confirmRounds: s.confirmRounds, coldBytes: s.coldBytes })
  const ceiling = t.kind === 'gemv' ? ceilings.copy : ceilings.fma
  const c = r.confirmation
  const full = { m: t.kind === 'gemv' ? 1 : LLAMA3_8B.prefillTokens, n: SHAPES[t.shape].n, k: SHAPES[t.shape].k }
  return {
    kind: t.kind, format: t.format, shape: t.shape, role: SHAPES[t.shape].role,
    problem: { m: t.m, n: t.n, k: t.k }, fullSize: s.scale === 1 ? null : full,
    fractionOf: t.kind === 'gemv' ? 'copy' : 'fma',
    verifiedRows: verificationRows(problem)?.length ?? t.m,
    tried: r.tried, correct: r.correct,
    tuned: figure(r.best, ceiling, t.kind), default: figure(r.default, ceiling, t.kind),
    selectionSpeedup: r.selectionSpeedup ?? null,
    confirmation: c ? { speedup: c.speedup, low: c.low, high: c.high, level: c.level, rounds: c.rounds, verdict: c.verdict, defaultMedianMs: c.baselineMedianMs, tunedMedianMs: c.candidateMedianMs } : null,
    keep: r.keep ?? null,
    failures: r.results.filter((x) => !x.correct).map((x) => ({ config: configKey(x.config), error: x.error ?? 'wrong result' })),
    seconds: (performance.now() - t0) / 1000,
  }
}

export async function kitMain(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv)
  if (typeof args === 'string') { say(args); return 2 }
  const started = new Date()
  const t0 = performance.now()
  // A few seconds are kept for closing the device and writing the files.
  const deadline = t0 + (args.budgetS - 5) * 1000
  const left = () => (deadline - performance.now()) / 1000
  const host = args.host ? parseWith(HostInfoSchema, JSON.parse(readFileSync(args.host, 'utf8')), `host info ${args.host}`) : hostFallback()
  const loadStart = uptimeLine()

  const navGpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu
  const adapter = await navGpu?.requestAdapter({ powerPreference: 'high-performance' })
  if (!adapter) { say('no WebGPU adapter: is a Vulkan driver (ICD) and libvulkan.so.1 present? (run.sh brings the loader)'); return 3 }
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean; subgroupMinSize?: number; subgroupMaxSize?: number }
  const limits: Record<string, number> = {}
  for (const key in adapter.limits) { const v = (adapter.limits as unknown as Record<string, unknown>)[key]; if (typeof v === 'number') limits[key] = v }
  const gpu = await openGpu(navGpu)
  const name = deviceName(gpu)
  const mapped = mappedGpuLibraries(readMaps())
  // Mesa's lavapipe/llvmpipe, SwiftShader, or whatever the runtime marks as a fallback adapter.
  const cpuAdapter = Boolean(info.isFallbackAdapter) || /llvmpipe|lavapipe|swiftshader|softpipe/i.test(`${info.description} ${info.architecture}`)
  const s = settingsFor(args.mode, cpuAdapter)
  say(`adapter: ${name}; vendor ${info.vendor || '?'} architecture ${info.architecture || '?'} device ${info.device || '?'}; ${cpuAdapter ? 'CPU adapter' : 'GPU adapter'}`)
  say(`driver: ${host.driver ?? 'unknown'} (${host.driverSource}); Vulkan loader ${host.vulkan.loader ?? 'unknown'} (${host.vulkan.loaderSource}); ICDs ${host.vulkan.icds.map((i) => `${i.file} API ${i.apiVersion}`).join(', ') || 'none found'}`)
  say(`loaded: backend ${mapped.backend}; Vulkan loader ${mapped.loader ?? 'none'}; driver ${mapped.drivers.join(', ') || 'unknown'}`)
  if (mapped.backend !== 'vulkan') say(`WARNING: WebGPU is not on Vulkan here (backend ${mapped.backend}): the figures are of that backend`)
  say(`limits: ${JSON.stringify(limits)}`)
  say(`features: ${[...adapter.features].join(', ')}; timing ${gpu.hasTimestamps ? 'timestamp queries' : 'wall clock'}`)
  const scaled = s.scale === 1 ? null : { factor: s.scale, reason: `${name} is a CPU adapter: n, k and the prefill m are divided by ${s.scale} (decode 1×${SHAPES.ffn_up.n / s.scale}×${SHAPES.ffn_up.k / s.scale} for 1×14336×4096), so these are not the 8B model's shapes` }
  if (scaled) say(scaled.reason)

  const skipped: KitResults['skipped'] = []
  const kernels: KernelRow[] = []
  const profile: KitResults['profile'] = []
  let copy: KitResults['copy'] = null
  let fma: KitResults['fma'] = null
  const autotuner: KitResults['autotuner'] = { job: {}, cells: [] }
  let correctness: KitResults['correctness'] = { passed: false, tried: 0, correct: 0, families: [] }
  try {
    correctness = await correctnessSuite(gpu, s)
    try {
      copy = await measureCopyBandwidth(gpu, s.copyBytes, { warmup: s.warmup, iterations: s.iterations })
      say(`copy bandwidth: ${copy.gbps.toFixed(2)} GB/s (${copy.bytes >> 20} MiB, read + write)`)
    } catch (err) { skipped.push({ what: 'copy probe', why: String(err) }) }
    try {
      fma = await measureFmaThroughput(gpu, { warmup: s.warmup, iterations: s.iterations, ...s.fma })
      say(`FP32 FMA rate: ${(fma.gflops / 1e3).toFixed(3)} TFLOP/s (${fma.workgroups} workgroups × ${fma.steps} steps)`)
    } catch (err) { skipped.push({ what: 'FMA probe', why: String(err) }) }

    const last: Partial<Record<'gemv' | 'gemm', { seconds: number; work: number }>> = {}
    // A share of the budget stays for the Metal-Marlin-style autotuner, which runs last.
    const reserve = 0.15 * args.budgetS
    for (const t of planTasks(s)) {
      const what = `${t.kind} ${t.format} ${t.shape} ${t.m}×${t.n}×${t.k}`
      const work = t.m * t.n * t.k
      if (!fits(left() - reserve, work, last[t.kind])) { skipped.push({ what, why: `budget: ${Math.max(0, left() - reserve).toFixed(0)} s left before the autotuner's share, the last ${t.kind} took ${last[t.kind]?.seconds.toFixed(0) ?? '?'} s` }); continue }
      try {
        const row = await tuneTask(gpu, t, s, { copy: copy?.gbps ?? null, fma: fma?.gflops ?? null })
        kernels.push(row)
        last[t.kind] = { seconds: row.seconds, work }
        const fr = row.tuned?.fraction
        say(`${what}: ${row.correct}/${row.tried} correct; tuned ${row.tuned?.configKey ?? '-'} ${row.tuned ? (t.kind === 'gemv' ? `${row.tuned.gbps.toFixed(1)} GB/s` : `${row.tuned.tflops.toFixed(3)} TFLOP/s`) : '-'} (${fr === null || fr === undefined ? '?' : (100 * fr).toFixed(1)}% of ${row.fractionOf}); default ${row.default ? (t.kind === 'gemv' ? `${row.default.gbps.toFixed(1)} GB/s` : `${row.default.tflops.toFixed(3)} TFLOP/s`) : '-'}; confirmed ${row.confirmation ? `${row.confirmation.speedup.toFixed(2)}x [${row.confirmation.low.toFixed(2)}, ${row.confirmation.high.toFixed(2)}]` : 'n/a'}; keep ${row.keep}; ${row.seconds.toFixed(1)} s`)
        if (t.kind === 'gemv' && t.format === 'q4_0' && row.tuned && copy) {
          const p = profileQ4Gemv({ problem: { format: 'q4_0', m: t.m, n: t.n, k: t.k }, config: row.tuned.config, gbps: row.tuned.gbps }, copy.gbps, fma?.gflops ?? null)
          profile.push({ ...p })
          say(p.line)
        }
      } catch (err) {
        skipped.push({ what, why: `failed: ${err instanceof Error ? err.message : String(err)}` })
      }
    }
    await metalMarlin(gpu, s, left, autotuner, skipped)
  } finally {
    await closeGpu(gpu)
  }

  const results: KitResults = {
    schema: 'kerneltune-gpu-kernels-kit/1',
    startedAt: started.toISOString(), finishedAt: new Date().toISOString(), seconds: (performance.now() - t0) / 1000, budgetSeconds: args.budgetS,
    settings: s, scaled,
    adapter: {
      name, vendor: String(info.vendor ?? ''), architecture: String(info.architecture ?? ''), device: String(info.device ?? ''), description: String(info.description ?? ''),
      isFallbackAdapter: Boolean(info.isFallbackAdapter), cpuAdapter,
      subgroupMinSize: typeof info.subgroupMinSize === 'number' ? info.subgroupMinSize : null, subgroupMaxSize: typeof info.subgroupMaxSize === 'number' ? info.subgroupMaxSize : null,
      features: [...adapter.features].map(String).sort(), limits, hasTimestamps: gpu.hasTimestamps, hasF16: gpu.hasF16, timing: gpu.hasTimestamps ? 'timestamp' : 'wall',
      mapped,
    },
    host, load: { start: loadStart, end: uptimeLine() }, correctness, copy, fma, kernels, profile, autotuner, skipped,
  }
  mkdirSync(args.out, { recursive: true })
  // results.json is the kit's contract with CI and the README: it always parses back. A run whose
  // figures do not fit the schema (a NaN from a driver, say) is kept as results.invalid.json
  // instead, so a lease's measurements are never lost to a check.
  const checked = ResultsSchema.safeParse(results)
  if (!checked.success) {
    writeFileSync(join(args.out, 'results.invalid.json'), JSON.stringify(results, null, 2) + '\n')
    say(`the results do not fit the schema (kept as results.invalid.json): ${checked.error.issues.slice(0, 10).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    return 1
  }
  writeFileSync(join(args.out, 'results.json'), JSON.stringify(checked.data, null, 2) + '\n')
  const md = markdown(checked.data as KitResults)
  writeFileSync(join(args.out, 'results.md'), md)
  console.log(md)
  if (!correctness.passed) { say('the correctness suite FAILED: see results.json correctness.families[].failures'); return 1 }
  return kernels.length > 0 ? 0 : 1
}

/**
 * The Metal-Marlin-style autotuner on the 8B model: each bit width's decode (batch 1) and prefill
 * cell, hidden 4096 and intermediate 14336 (3.5×), its guide's variant per batch, each cell's
 * winner confirmed against its default. One cell per call, so the budget is checked between cells.
 */
async function metalMarlin(gpu: GpuContext, s: KitSettings, left: () => number, out: KitResults['autotuner'], skipped: KitResults['skipped']): Promise<void> {
  const hidden = LLAMA3_8B.hidden / s.scale
  const base: Omit<AutotuneJob, 'bits' | 'batchSizes'> = {
    hiddenSizes: [hidden], warmup: s.warmup, iterations: s.iterations, guideVariantsOnly: true, mixed: false,
    intermediateMultiplier: LLAMA3_8B.ffn / LLAMA3_8B.hidden, confirmRounds: s.confirmRounds,
  }
  const batches = s.mode === 'quick' ? [1] : [1, LLAMA3_8B.prefillTokens / s.scale]
  const bits = s.mode === 'quick' ? [4] : [4, 8, 2, 3]
  out.job = { ...base, bits, batchSizes: batches }
  let lastSeconds: number | undefined
  for (const batch of batches) {
    for (const b of bits) {
      const what = `metal-marlin autotuner ${b}-bit batch ${batch} hidden ${hidden}`
      const need = lastSeconds === undefined ? 0 : 1.25 * lastSeconds * (batch > 1 ? 4 : 1)
      if (left() <= need || left() <= 0) { skipped.push({ what, why: `budget: ${Math.max(0, left()).toFixed(0)} s left` }); continue }
      const t0 = performance.now()
      try {
        let cells: CellSummary[] = []
        await runAutotuneJob(gpu, { ...base, bits: [b], batchSizes: [batch] }, (e) => { if (e.event === 'done') cells = e.cells })
        out.cells.push(...cells.map((c) => ({ ...c, seconds: (performance.now() - t0) / 1000 })))
        for (const c of cells) say(`${what}: ${c.tried - c.failed}/${c.tried} ran; best ${c.best?.kernel_name ?? 'none'} ${c.best ? `${c.best.throughput_gbps.toFixed(1)} GB/s` : ''}; kept ${c.kept}`)
      } catch (err) {
        out.error = `${what}: ${err instanceof Error ? err.message : String(err)}`
        skipped.push({ what, why: out.error })
      }
      if (batch === 1) lastSeconds = (performance.now() - t0) / 1000
    }
  }
}
