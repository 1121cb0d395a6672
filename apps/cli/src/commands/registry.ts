/**
 * kerneltune registry list|show|approve|deprecate: the Tier 3 kernel registry. Generated kernels
 * arrive as `proposed`; an approver other than the submitter approves or deprecates them with a
 * reason, and every step is in the audit trail (`show`).
 */
import { RegistryStatusSchema } from '@kerneltune/core'
import { KERNEL_KINDS, WEIGHT_FORMATS, type WeightFormat } from '@kerneltune/gpu-kernels'
import { selectKernel, usageNotes } from '@kerneltune/kernel-lab'
import { verifyInSandbox } from '@kerneltune/kernel-lab/node'
import { EXIT } from '../cli/run.ts'
import { defineCommand } from '../cli/command.ts'
import { keyValues, table } from '../cli/output.ts'
import { onePositional, usageError } from '../cli/args.ts'
import { REGISTRY_FLAGS, registryTarget, type RegistryTarget } from './registry-target.ts'

/** Runs `fn` on the registry the flags name (embedded store or server) and closes it after. */
export async function withRegistry<T>(flags: Parameters<typeof registryTarget>[0], env: Parameters<typeof registryTarget>[1], fn: (t: RegistryTarget) => Promise<T>): Promise<T> {
  const t = await registryTarget(flags, env)
  try {
    return await fn(t)
  } finally {
    await t.close()
  }
}

const oneId = (p: readonly string[]) => onePositional(p, 'give exactly one registry entry ID (see kerneltune registry list)')

const listSub = defineCommand({
  name: 'list', summary: 'List registry entries',
  flags: [...REGISTRY_FLAGS, { name: 'status', type: 'string', choices: RegistryStatusSchema.options, description: 'Only entries with this status' }] as const,
  jsonOutput: '{ items: [{ id, name, kernelFamily, provider, status, metadata, createdAt, updatedAt }] }',
  examples: ['kerneltune registry list --status proposed', 'kerneltune registry list --server http://localhost:8080 --token $T --json'],
  async run(ctx) {
    const items = await withRegistry(ctx.flags, ctx.io.env, (t) => t.list(ctx.flags.status))
    if (ctx.json) ctx.printJson({ items: items.map(({ source: _s, ...e }) => e) })
    else ctx.io.stdout(table(items.map((e) => [e.id, e.name, e.kernelFamily, e.provider, e.status]), ['id', 'name', 'family', 'provider', 'status']))
  },
})

const showSub = defineCommand({
  name: 'show', summary: 'One entry with its provenance and audit trail', positionals: ['ID'],
  flags: REGISTRY_FLAGS, jsonOutput: '{ entry: { id, name, kernelFamily, provider, source, status, metadata }, audit: [{ action, actor, reason, createdAt }] }',
  examples: ['kerneltune registry show 01J...'],
  async run(ctx) {
    const { entry, audit } = await withRegistry(ctx.flags, ctx.io.env, (t) => t.show(oneId(ctx.positionals)))
    if (ctx.json) return ctx.printJson({ entry, audit })
    const m = entry.metadata as { provenance?: { description?: string; parent?: string }; verification?: { maxAbsError?: number; tolerance?: number }; timings?: { medianMs?: number } }
    ctx.io.stdout(keyValues([['id', entry.id], ['name', entry.name], ['family', entry.kernelFamily], ['provider', entry.provider], ['status', entry.status], ['changed', m.provenance?.description], ['parent', m.provenance?.parent], ['max |error|', m.verification?.maxAbsError], ['median ms', m.timings?.medianMs]]))
    ctx.io.stdout(table(audit.map((a) => [a.createdAt, a.action, a.actor, a.reason ?? '']), ['when', 'action', 'actor', 'reason']))
  },
})

function transition(name: 'approve' | 'deprecate', summary: string) {
  return defineCommand({
    name, summary, positionals: ['ID'],
    flags: [...REGISTRY_FLAGS, { name: 'reason', type: 'string', description: 'Why (required; kept in the audit trail)' }] as const,
    jsonOutput: '{ id, name, status, ... } (the entry after the change)',
    examples: [`kerneltune registry ${name} 01J... --reason "${name === 'approve' ? 'verified on lavapipe, reviewed' : 'wrong on odd n'}" --as reviewer`],
    async run(ctx) {
      const id = oneId(ctx.positionals)
      if (!ctx.flags.reason) throw usageError(`registry ${name} needs --reason TEXT: the audit trail says why`)
      const reason = ctx.flags.reason
      const e = await withRegistry(ctx.flags, ctx.io.env, (t) => t[name](id, reason))
      if (ctx.json) ctx.printJson(e)
      else ctx.io.stdout(keyValues([['id', e.id], ['name', e.name], ['status', e.status]]))
    },
  })
}

const selectSub = defineCommand({
  name: 'select', summary: 'The kernel a run may use for a family: approved only, fastest recorded; --run runs it in the sandbox',
  flags: [...REGISTRY_FLAGS,
    { name: 'kernel', type: 'string', choices: KERNEL_KINDS, description: 'Kernel', default: 'gemv' },
    { name: 'format', type: 'string', choices: WEIGHT_FORMATS, description: 'Weight format', default: 'q4_0' },
    { name: 'run', type: 'boolean', description: 'Run the selected kernel (verified again in the sandbox, on its recorded problem) and report the result', default: false },
  ] as const,
  jsonOutput: '{ family, selected: { id, name, provider, status } | null, excluded: [{ id, name, status, why }], result?: { registryId, verified, timings, notes } }',
  examples: ['kerneltune registry select --kernel gemv --format q4_0 --run --json'],
  async run(ctx) {
    return withRegistry(ctx.flags, ctx.io.env, async (t) => {
      const family = `${ctx.flags.kernel}/${ctx.flags.format}`
      const all = await t.list()
      const s = selectKernel(all, family)
      const selected = s.selected && { id: s.selected.id, name: s.selected.name, provider: s.selected.provider, status: s.selected.status }
      let result: Record<string, unknown> | undefined
      if (ctx.flags.run && s.selected) {
        const meta = s.selected.metadata as { problem?: { m: number; n: number; k: number } }
        const problem = { format: ctx.flags.format as WeightFormat, m: meta.problem?.m ?? 1, n: meta.problem?.n ?? 256, k: meta.problem?.k ?? 1024 }
        const r = await verifyInSandbox(s.selected.source, problem, { timing: { warmup: 2, iterations: 5 } })
        // The status is read again after the run: a deprecation in between is noted in the result.
        const notes = usageNotes([s.selected.id], await t.list())
        result = { registryId: s.selected.id, problem, verified: r.verified, verification: r.verification, ...(r.timings ? { timings: r.timings } : {}), notes }
      }
      if (ctx.json) ctx.printJson({ family, selected, excluded: s.excluded, ...(result ? { result } : {}) })
      else {
        ctx.io.stdout(keyValues([['family', family], ['selected', selected ? `${selected.name} (${selected.id})` : 'none approved'], ...(result ? [['verified', String(result.verified)] as [string, string]] : [])]))
        if (s.excluded.length) ctx.io.stdout(table(s.excluded.map((e) => [e.id, e.name, e.status, e.why]), ['excluded', 'name', 'status', 'why']))
      }
      return selected ? EXIT.OK : EXIT.CHECK_FAILED
    })
  },
})

export const registryCommand = defineCommand({
  name: 'registry',
  summary: 'The kernel registry: list, show, select, approve, deprecate',
  subcommands: [listSub, showSub, selectSub, transition('approve', 'Approve a proposed kernel (not by its submitter)'), transition('deprecate', 'Deprecate a kernel: no future selection')],
})
