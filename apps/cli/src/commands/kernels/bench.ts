import type { BenchEntry, DeviceReport } from '@kerneltune/gpu-kernels/deno-runner'
import { configKey, DEFAULT_CONFIRM_ROUNDS, type CopyBandwidth } from '@kerneltune/gpu-kernels'
import { defineCommand } from '../../cli/command.ts'
import { EXIT } from '../../cli/run.ts'
import { fmt, table } from '../../cli/output.ts'
import { FAMILY_FLAGS, familyJob, runKernelsJob } from './shared.ts'

/** "1.12x [1.03, 1.21]", "=" when the default won selection, "" when nothing was confirmed. */
function confirmed(e: BenchEntry): string {
  const c = e.confirmation
  if (c) return `${fmt(c.speedup, 2)}x [${fmt(c.low, 2)}, ${fmt(c.high, 2)}]${c.verdict === 'faster' ? '' : c.verdict === 'slower' ? ' slower' : ' no reliable win'}`
  return e.speedup === 1 ? 'default won' : ''
}

export const kernelsBench = defineCommand({
  name: 'bench',
  summary: 'Tune each kernel and format over a small search, confirm the winner against the default afresh, and compare with the copy-bandwidth ceiling.',
  description: 'Every configuration is verified against the CPU reference before it is timed. The fastest in selection is then re-timed against the default in fresh, randomly ordered paired rounds: the reported speed-up is the geometric mean of the per-round ratios with a 95% paired t interval on log ratios. The selection speed-up is shown too, but it is biased upward (the winner\'s own noise helped it win). When the fresh interval contains 1 the default is kept. Timing uses GPU timestamp queries where the device offers them, else queue-completion wall time. Runs under Deno\'s WebGPU when this runtime has none.',
  flags: [
    ...FAMILY_FLAGS,
    { name: 'warmup', type: 'integer', min: 0, default: 3, description: 'Warm-up runs per configuration.' },
    { name: 'iterations', type: 'integer', min: 1, default: 10, description: 'Timed runs per configuration.' },
    { name: 'copy-mib', type: 'integer', min: 1, default: 32, description: 'Size of the copy-ceiling buffer in MiB.' },
    { name: 'confirm-rounds', type: 'integer', min: 0, default: DEFAULT_CONFIRM_ROUNDS, description: 'Paired rounds re-timing the winner and the default afresh (each round: warm-ups + iterations of each, random order). 0 skips confirmation and reports no speed-up.' },
  ],
  examples: ['kerneltune kernels bench --max-configs 12', 'kerneltune kernels bench --kind gemm --confirm-rounds 30', 'kerneltune kernels bench --kind gemv --gemv-size 1x4096x4096 --json'],
  jsonOutput: '{ ok, device, copy: { gbps, latencyMs, bytes }, timing: { warmup, iterations, confirmRounds }, entries: [{ kind, format, problem, tried, correct, default?, tuned?, selectionSpeedup? (biased upward), confirmation?: { method, rounds, speedup, low, high, level, verdict: faster|no-reliable-win|slower, baselineMedianMs, candidateMedianMs, baselineMs, candidateMs, firstInRound }, speedup? (confirmed), keep?: tuned|default, defaultFractionOfCopy?, tunedFractionOfCopy? }] } where default/tuned are KernelBenchResult objects (latencyMs {mean,median,min,samples}, timing, gbps, gflops, bytesMoved, flops, config, correct, maxAbsError, tolerance)',
  async run(ctx) {
    const job = { type: 'bench', ...familyJob(ctx.flags), warmup: ctx.flags.warmup, iterations: ctx.flags.iterations, copyBytes: (ctx.flags.copyMib ?? 32) * 1048576, confirmRounds: ctx.flags.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS }
    const result = await runKernelsJob<{ device: DeviceReport; copy: CopyBandwidth; timing: { warmup: number; iterations: number; confirmRounds: number }; entries: BenchEntry[] }>(ctx.io, 'bench', job)
    const ok = result.entries.every((e) => e.tuned !== undefined)
    if (ctx.json) ctx.printJson({ ok, ...result })
    else {
      ctx.io.stdout(`device: ${result.device.name} (timing: ${result.device.hasTimestamps ? 'timestamp queries' : 'wall clock'})\ncopy ceiling: ${fmt(result.copy.gbps, 2)} GB/s over ${result.copy.bytes / 1048576} MiB\n`)
      const pct = (x?: number) => (x === undefined ? '' : `${fmt(100 * x, 1)}%`)
      ctx.io.stdout(table(result.entries.map((e) => [
        e.kind, e.format, `${e.problem.m}x${e.problem.n}x${e.problem.k}`, `${e.correct}/${e.tried}`,
        e.default?.correct ? fmt(e.default.latencyMs.median, 3) : '', e.tuned ? fmt(e.tuned.latencyMs.median, 3) : '',
        e.selectionSpeedup ? `${fmt(e.selectionSpeedup, 2)}x` : '', confirmed(e), e.keep ?? '',
        e.tuned ? fmt(e.tuned.gbps, 2) : '', pct(e.tunedFractionOfCopy), e.tuned ? configKey(e.tuned.config) : 'none correct',
      ]), ['kind', 'format', 'problem', 'ok', 'default ms', 'tuned ms', 'selection (biased)', 'confirmed [95% CI]', 'keep', 'GB/s', 'of copy', 'tuned config']))
      const kept = result.entries.filter((e) => e.confirmation && e.keep === 'default').length
      ctx.io.stdout(`\nselection speed-ups are measured on the timings that picked the winner and are biased upward; confirmed ones come from ${result.timing.confirmRounds} fresh interleaved rounds (geometric mean of per-round ratios).\n${kept ? `${kept} tuned winner(s) showed no reliable win afresh (interval includes 1 or is below it): the default is kept for them.\n` : ''}`)
    }
    return ok ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
