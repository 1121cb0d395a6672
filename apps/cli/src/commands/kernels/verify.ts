import type { VerifyEntry, DeviceReport } from '@kerneltune/gpu-kernels/deno-runner'
import { configKey } from '@kerneltune/gpu-kernels'
import { defineCommand } from '../../cli/command.ts'
import { EXIT } from '../../cli/run.ts'
import { table } from '../../cli/output.ts'
import { FAMILY_FLAGS, familyJob, runKernelsJob } from './shared.ts'

export const kernelsVerify = defineCommand({
  name: 'verify',
  summary: 'Check every valid configuration (or --max-configs of them) against the CPU reference on the WebGPU device.',
  description: 'Runs under Deno\'s WebGPU when this runtime has none (Node). Exit 3 when any configuration is wrong or fails to compile.',
  flags: FAMILY_FLAGS,
  examples: ['kerneltune kernels verify --max-configs 8', 'kerneltune kernels verify --kind gemv --format q4_0 --json'],
  jsonOutput: '{ ok, device: { name, adapterInfo, hasTimestamps, hasF16, limits }, entries: [{ kind, format, problem, tried, correct, failures: [{ config, error }] }] }',
  async run(ctx) {
    const result = await runKernelsJob<{ device: DeviceReport; entries: VerifyEntry[] }>(ctx.io, 'verify', { type: 'verify', ...familyJob(ctx.flags) })
    const ok = result.entries.every((e) => e.correct === e.tried)
    if (ctx.json) ctx.printJson({ ok, ...result })
    else {
      ctx.io.stdout(`device: ${result.device.name}\n`)
      ctx.io.stdout(table(result.entries.map((e) => [e.kind, e.format, `${e.problem.m}x${e.problem.n}x${e.problem.k}`, e.tried, e.correct, e.failures.length ? `${configKey(e.failures[0]!.config)}: ${e.failures[0]!.error}` : '']), ['kind', 'format', 'problem', 'tried', 'correct', 'first failure']))
    }
    return ok ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
