/**
 * kerneltune generate --provider template|llm|human --kernel gemv|gemm --format F: asks a provider
 * for candidate kernels, verifies each in the WebGPU sandbox against the CPU reference, and files
 * every verified one as a `proposed` registry entry with its provenance (provider, template or
 * prompt, parent kernel, verification report, timings). Exit 0 when at least one candidate
 * verified, 3 when none did (an LLM on a synthetic model: that is the pipeline working).
 */
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { DEFAULT_SIZES, KERNEL_KINDS, WEIGHT_FORMATS, type KernelKind, type WeightFormat } from '@kerneltune/gpu-kernels'
import { humanProvider, llmProvider, PROVIDER_NAMES, templateProvider, type KernelProvider } from '@kerneltune/kernel-lab'
import { verifyInSandbox } from '@kerneltune/kernel-lab/node'
import { defineCommand } from '../cli/command.ts'
import { table } from '../cli/output.ts'
import { usageError } from '../cli/args.ts'
import { EXIT } from '../cli/run.ts'
import { REGISTRY_FLAGS } from './registry-target.ts'
import { withRegistry } from './registry.ts'

/** The module `--provider human` takes, named after its file. */
function humanModule(path: string): { name: string; source: string } {
  try { return { name: basename(path), source: readFileSync(path, 'utf8') } } catch { throw usageError(`cannot read --file ${path}`) }
}

export const generateCommand = defineCommand({
  name: 'generate',
  summary: 'Generate kernel candidates, verify them in the sandbox, propose the verified ones',
  flags: [
    ...REGISTRY_FLAGS,
    { name: 'provider', type: 'string', choices: PROVIDER_NAMES, description: 'Who writes the candidates', default: 'template' },
    { name: 'kernel', type: 'string', choices: KERNEL_KINDS, description: 'Kernel', default: 'gemv' },
    { name: 'format', type: 'string', choices: WEIGHT_FORMATS, description: 'Weight format', default: 'q4_0' },
    { name: 'count', type: 'integer', description: 'Most candidates to generate', default: 4, min: 1, max: 32 },
    { name: 'endpoint', type: 'string', description: 'OpenAI-compatible endpoint for --provider llm', valueName: 'URL' },
    { name: 'model', type: 'string', description: 'Model name sent to the endpoint' },
    { name: 'file', type: 'string', description: 'The module for --provider human', valueName: 'PATH' },
    { name: 'n', type: 'integer', description: 'Output size of the verification problem (default gemv 256, gemm 128)', min: 1 },
    { name: 'k', type: 'integer', description: 'Inner size, a multiple of 32 (default gemv 1024, gemm 512)', min: 32 },
    { name: 'm', type: 'integer', description: 'Activation rows (default gemv 1, gemm 32)', min: 1 },
    { name: 'iterations', type: 'integer', description: 'Timed dispatches per verified candidate', default: 10, min: 1 },
  ] as const,
  jsonOutput: '{ provider, kernel, problem, candidates: [{ name, provider, description, verified, status: "proposed"|"rejected", registryId, verification: { correct, maxAbsError, tolerance, error? }, sandbox: { outcome, denied? }, timings? }] }',
  examples: ['kerneltune generate --provider template --kernel gemv --format q4_0 --json', 'kerneltune generate --provider llm --endpoint http://127.0.0.1:8080 --count 2', 'kerneltune generate --provider human --file my-kernel.js'],
  async run(ctx) {
    const f = ctx.flags
    const kind = f.kernel as KernelKind
    const s = DEFAULT_SIZES[kind]
    const problem = { format: f.format as WeightFormat, m: f.m ?? s.m, n: f.n ?? s.n, k: f.k ?? s.k }
    if (problem.k % 32) throw usageError(`--k must be a multiple of 32, got ${problem.k}`)
    if (f.provider === 'llm' && !f.endpoint) throw usageError('--provider llm needs --endpoint URL (an OpenAI-compatible server)')
    if (f.provider === 'human' && !f.file) throw usageError('--provider human needs --file PATH: the kernel module (default export (ctx) => ...)')
    const provider: KernelProvider = f.provider === 'llm' ? llmProvider({ endpoint: f.endpoint!, ...(f.model ? { model: f.model } : {}) })
      : f.provider === 'human' ? humanProvider(humanModule(resolve(ctx.io.cwd, f.file!))) : templateProvider()
    const candidates = await provider.generate({ kind, problem, count: f.count ?? 4 })
    const out = await withRegistry(f, ctx.io.env, async (target) => {
      const out = []
      for (const [i, c] of candidates.entries()) {
        if (!ctx.json) ctx.io.stderr(`generate: verifying ${i + 1}/${candidates.length} ${c.name} in the sandbox\n`)
        const report = await verifyInSandbox(c.source, problem, { timing: { warmup: 2, iterations: f.iterations ?? 10 } })
        const entry = report.verified ? await target.submit({
          name: c.name, kernelFamily: c.kernelFamily, provider: c.provider, source: c.source,
          metadata: { provenance: c.provenance, problem, verification: report.verification, timings: report.timings, sandbox: report.sandbox, device: report.device },
        }) : undefined
        out.push({ name: c.name, provider: c.provider, description: c.provenance.description, verified: report.verified, status: report.verified ? 'proposed' : 'rejected', registryId: entry?.id ?? null, verification: report.verification, sandbox: report.sandbox, ...(report.timings ? { timings: report.timings } : {}) })
      }
      return out
    })
    if (ctx.json) ctx.printJson({ provider: provider.name, kernel: kind, problem, candidates: out })
    else ctx.io.stdout(table(out.map((c) => [c.name, c.verified ? 'yes' : 'no', c.status, c.registryId ?? '', c.timings ? c.timings.medianMs.toFixed(3) : '', c.verified ? '' : (c.verification.error ?? '').slice(0, 80)]), ['candidate', 'verified', 'status', 'registry id', 'median ms', 'why not']))
    return out.some((c) => c.verified) ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
