import type { BenchEntry, DeviceReport } from '@kerneltune/gpu-kernels/deno-runner'
import { configKey, type CopyBandwidth } from '@kerneltune/gpu-kernels'
import { defineCommand } from '../../cli/command.ts'
import { EXIT } from '../../cli/run.ts'
import { fmt, table } from '../../cli/output.ts'
import { FAMILY_FLAGS, familyJob, runKernelsJob } from './shared.ts'

export const kernelsBench = defineCommand({
  name: 'bench',
  summary: 'Tune each kernel and format over a small search and compare with the default configuration and the copy-bandwidth ceiling.',
  description: 'Every configuration is verified against the CPU reference before it is timed. Timing uses GPU timestamp queries where the device offers them, else queue-completion wall time. Runs under Deno\'s WebGPU when this runtime has none.',
  flags: [
    ...FAMILY_FLAGS,
    { name: 'warmup', type: 'integer', min: 0, default: 3, description: 'Warm-up runs per configuration.' },
    { name: 'iterations', type: 'integer', min: 1, default: 10, description: 'Timed runs per configuration.' },
    { name: 'copy-mib', type: 'integer', min: 1, default: 32, description: 'Size of the copy-ceiling buffer in MiB.' },
  ],
  examples: ['kerneltune kernels bench --max-configs 12', 'kerneltune kernels bench --kind gemv --gemv-size 1x4096x4096 --json'],
  jsonOutput: '{ ok, device, copy: { gbps, latencyMs, bytes }, timing: { warmup, iterations }, entries: [{ kind, format, problem, tried, correct, default?, tuned?, speedup?, defaultFractionOfCopy?, tunedFractionOfCopy? }] } where default/tuned are KernelBenchResult objects (latencyMs {mean,median,min,samples}, timing, gbps, gflops, bytesMoved, flops, config, correct, maxAbsError, tolerance)',
  async run(ctx) {
    const job = { type: 'bench', ...familyJob(ctx.flags), warmup: ctx.flags.warmup, iterations: ctx.flags.iterations, copyBytes: (ctx.flags.copyMib ?? 32) * 1048576 }
    const result = await runKernelsJob<{ device: DeviceReport; copy: CopyBandwidth; entries: BenchEntry[] }>(ctx.io, 'bench', job)
    const ok = result.entries.every((e) => e.tuned !== undefined)
    if (ctx.json) ctx.printJson({ ok, ...result })
    else {
      ctx.io.stdout(`device: ${result.device.name} (timing: ${result.device.hasTimestamps ? 'timestamp queries' : 'wall clock'})\ncopy ceiling: ${fmt(result.copy.gbps, 2)} GB/s over ${result.copy.bytes / 1048576} MiB\n`)
      const pct = (x?: number) => (x === undefined ? '' : `${fmt(100 * x, 1)}%`)
      ctx.io.stdout(table(result.entries.map((e) => [
        e.kind, e.format, `${e.problem.m}x${e.problem.n}x${e.problem.k}`, `${e.correct}/${e.tried}`,
        e.default?.correct ? fmt(e.default.latencyMs.median, 3) : '', e.tuned ? fmt(e.tuned.latencyMs.median, 3) : '',
        e.speedup ? `${fmt(e.speedup, 2)}x` : '', e.tuned ? fmt(e.tuned.gbps, 2) : '', pct(e.tunedFractionOfCopy), e.tuned ? configKey(e.tuned.config) : 'none correct',
      ]), ['kind', 'format', 'problem', 'ok', 'default ms', 'tuned ms', 'speedup', 'GB/s', 'of copy', 'tuned config']))
    }
    return ok ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
