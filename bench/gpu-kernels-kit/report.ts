/**
 * The markdown the kit writes beside its JSON and prints last: the header issue 40 item 2 asks for
 * (device, driver, Vulkan version, date), the probes, then per kernel and shape the tuned
 * configuration, its GB/s or TFLOP/s, the fraction of the copy bandwidth (GEMV) or of the FMA
 * probe's FP32 rate (GEMM), the default's figures, and the winner re-timed against the default.
 */
import type { KernelRow, KitResults } from './schema.ts'

export const TABLE_COLUMNS = [
  'kernel', 'shape (m×n×k)', 'tuned configuration', 'tuned', 'tuned / ceiling', 'default', 'default / ceiling',
  'selection speed-up (biased)', 'confirmed speed-up [95% CI], rounds', 'kept',
] as const

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)}%`)

/** GB/s for a GEMV (bandwidth-bound), TFLOP/s for a GEMM (compute-bound). */
export function rate(row: Pick<KernelRow, 'kind'>, f: { gbps: number; tflops: number } | null): string {
  if (!f) return '–'
  if (row.kind === 'gemv') return `${f.gbps.toFixed(f.gbps < 10 ? 2 : 0)} GB/s`
  // A CPU adapter's GEMM runs at a few GFLOP/s, which TFLOP/s would round to zero.
  return f.tflops < 0.1 ? `${(f.tflops * 1e3).toFixed(2)} GFLOP/s` : `${f.tflops.toFixed(2)} TFLOP/s`
}

/** Parameters in a short form: gemv `wg64 r1 v1 u1`, gemm `16×16 t1×1 smem`. */
export function shortConfig(kind: KernelRow['kind'], c: Record<string, number | boolean> | undefined): string {
  if (!c) return '–'
  if (kind === 'gemv') return `wg${c.workgroupSize} rows${c.rowsPerWorkgroup} vec${c.vecWidth} unroll${c.unroll}`
  return `${c.tileM}×${c.tileN} tile, ${c.threadM}×${c.threadN}/thread${c.useSharedMemory ? ', shared mem' : ''}`
}

export function confirmedCell(row: KernelRow): string {
  const c = row.confirmation
  if (c) return `${c.speedup.toFixed(2)}× [${c.low.toFixed(2)}, ${c.high.toFixed(2)}], ${c.rounds}`
  if (row.tuned && row.default && row.tuned.configKey === row.default.configKey) return 'default won selection'
  return '–'
}

export function tableRow(row: KernelRow): string {
  const cells = [
    `${row.kind} ${row.format} ${row.shape}`,
    `${row.problem.m}×${row.problem.n}×${row.problem.k}`,
    shortConfig(row.kind, row.tuned?.config),
    rate(row, row.tuned),
    pct(row.tuned?.fraction),
    rate(row, row.default),
    pct(row.default?.fraction),
    row.selectionSpeedup === null ? '–' : `${row.selectionSpeedup.toFixed(2)}×`,
    confirmedCell(row),
    row.keep ?? '–',
  ]
  return `| ${cells.join(' | ')} |`
}

export function markdown(r: KitResults): string {
  const a = r.adapter
  const h = r.host
  const icd = h.vulkan.icds.map((i) => `${i.file} (API ${i.apiVersion ?? '?'})`).join(', ') || 'none found'
  const lines = [
    `# kerneltune kernels kit: ${a.name}`,
    '',
    `- date: ${r.startedAt} – ${r.finishedAt} (${r.seconds.toFixed(0)} s of a ${r.budgetSeconds} s budget), mode ${r.settings.mode}`,
    `- device: ${a.name} (vendor ${a.vendor || '?'}, ${a.cpuAdapter ? 'a CPU adapter' : 'a GPU adapter'}${h.gpu ? `; nvidia-smi: ${h.gpu}` : ''})`,
    `- driver: ${h.driver ?? 'unknown'} (${h.driverSource})`,
    `- Vulkan: loader ${h.vulkan.loader ?? 'unknown'} (${h.vulkan.loaderSource}); ICD ${icd}; WebGPU backend **${a.mapped.backend}** (loaded ${a.mapped.loader ?? 'no Vulkan loader'} with ${a.mapped.drivers.join(', ') || '?'})`,
    `- runtime: Deno ${h.kit.deno} WebGPU; timing ${a.timing === 'timestamp' ? 'GPU timestamp queries' : 'queue wall time'}; kerneltune ${h.kit.kerneltuneCommit}${h.kit.dirty ? ' (dirty)' : ''}`,
    `- host: ${h.cpu}; load ${r.load.start} → ${r.load.end}`,
    `- tuning: ${r.settings.maxConfigs} configurations per kernel and shape (default included), ${r.settings.warmup} warm-ups + ${r.settings.iterations} timed runs each (median); confirmation ${r.settings.confirmRounds} fresh paired rounds of winner and default; cold weights: runs rotate over copies of at least ${(r.settings.coldBytes / 2 ** 20).toFixed(0)} MiB together`,
    ...(r.scaled ? [`- **scaled shapes**: ${r.scaled.reason}`] : []),
    '',
    `- copy bandwidth (vec4 copy, read + write): ${r.copy ? `${r.copy.gbps.toFixed(1)} GB/s (${(r.copy.bytes / 2 ** 20).toFixed(0)} MiB)` : 'not measured'}`,
    `- FP32 FMA rate (no tensor cores): ${r.fma ? (r.fma.gflops < 100 ? `${r.fma.gflops.toFixed(2)} GFLOP/s` : `${(r.fma.gflops / 1e3).toFixed(2)} TFLOP/s`) : 'not measured'} (${r.fma ? `${r.fma.workgroups} workgroups × 256 threads × ${r.fma.steps} steps of 8 vec4 FMAs` : ''})`,
    `- correctness suite: ${r.correctness.passed ? 'passed' : '**FAILED**'}, ${r.correctness.correct}/${r.correctness.tried} configurations matched the CPU reference`,
    '',
    `| ${TABLE_COLUMNS.join(' | ')} |`,
    `|${TABLE_COLUMNS.map((_, i) => (i < 3 ? '---' : '---:')).join('|')}|`,
    ...r.kernels.map(tableRow),
    '',
    'Ceiling: the copy bandwidth for a GEMV, the FMA rate for a GEMM. Tuned and default figures are the selection timings; the confirmed speed-up comes from fresh rounds only.',
  ]
  if (r.profile.length) lines.push('', '## Q4_0 GEMV profile', '', ...r.profile.map((p) => `- ${p.line}`))
  if (r.autotuner.cells.length || r.autotuner.error) {
    lines.push('', '## Metal-Marlin-style autotuner (metal-marlin-autotune)', '', 'Its benchmarker times warm weights (no rotation over copies) and reports mean latency; the table above is the one to quote.', '')
    if (r.autotuner.error) lines.push(`- error: ${r.autotuner.error}`)
    for (const c of r.autotuner.cells) {
      const best = (c as { best?: { kernel_name?: string; latency_ms?: number; throughput_gbps?: number } | null }).best
      lines.push(`- ${c.bits.join('+')}-bit batch ${c.batch} hidden ${c.hidden}: ${c.tried - c.failed}/${c.tried} ran; best ${best ? `${best.kernel_name} ${best.latency_ms?.toFixed(3)} ms, ${best.throughput_gbps?.toFixed(1)} GB/s` : 'none'}; kept ${c.kept ?? '–'}`)
    }
  }
  if (r.skipped.length) lines.push('', '## Skipped', '', ...r.skipped.map((s) => `- ${s.what}: ${s.why}`))
  return lines.join('\n') + '\n'
}
