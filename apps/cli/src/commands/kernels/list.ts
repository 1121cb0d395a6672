import { DEFAULT_LIMITS, DEFAULT_SIZES, KERNEL_KINDS, WEIGHT_FORMATS, blockBytes, defaultConfig, enumerateConfigs, gpuKernelProviders } from '@kerneltune/gpu-kernels'
import { defineCommand } from '../../cli/command.ts'
import { table } from '../../cli/output.ts'
import { FAMILY_FLAGS, familyJob } from './shared.ts'

export const kernelsList = defineCommand({
  name: 'list',
  summary: 'List the WGSL kernels, their weight formats and parameter spaces (no GPU needed).',
  flags: FAMILY_FLAGS.filter((f) => f.name !== 'max-configs'),
  examples: ['kerneltune kernels list', 'kerneltune kernels list --kind gemv --format q4_0 --gemv-size 1x4096x4096 --json'],
  jsonOutput: '{ kernels: [{ name, kind, format, description, bytesPerBlock, parameters: [{ name, type, values }], defaultConfig, problem: {m,n,k}, validConfigs }] } (validConfigs counted under WebGPU\'s default limits)',
  run(ctx) {
    const job = familyJob(ctx.flags)
    const kernels = gpuKernelProviders()
      .filter((p) => (!job.kinds || job.kinds.includes(p.kernelKind)) && (!job.formats || job.formats.includes(p.format)))
      .map((p) => {
        const size = job.sizes[p.kernelKind] ?? DEFAULT_SIZES[p.kernelKind]
        const problem = { format: p.format, ...size }
        return {
          name: p.name,
          kind: p.kernelKind,
          format: p.format,
          description: p.description ?? '',
          bytesPerBlock: blockBytes(p.format),
          parameters: p.parameters,
          defaultConfig: defaultConfig(p.kernelKind, p.format),
          problem: size,
          validConfigs: enumerateConfigs(p.kernelKind, p.format, problem, DEFAULT_LIMITS).length,
        }
      })
    if (ctx.json) return ctx.printJson({ kernels })
    ctx.io.stdout(table(kernels.map((k) => [k.name, k.kind, k.format, `${k.bytesPerBlock} B/32`, `${k.problem.m}x${k.problem.n}x${k.problem.k}`, k.validConfigs]), ['kernel', 'kind', 'format', 'size', 'problem', 'valid configs']))
    for (const kind of KERNEL_KINDS) {
      if (job.kinds && !job.kinds.includes(kind)) continue
      const params = kernels.find((k) => k.kind === kind)?.parameters ?? []
      ctx.io.stdout(`\n${kind} parameters (default ${JSON.stringify(defaultConfig(kind, WEIGHT_FORMATS[0]))}):\n`)
      ctx.io.stdout(table(params.map((p) => [p.name, p.type, p.values.join(', ')]), ['parameter', 'type', 'values']))
    }
  },
})
