/**
 * `kerneltune catalog preview`: what a sweep would cover on a target. Counts for both modes, the
 * legal combinations, and every pruned (or engine-refused) combination with the rule that
 * removed it.
 */
import { ENUMERATION_MODES, comboText, previewGroups, type CatalogPreview } from '@kerneltune/catalog'
import { openCatalog } from '@kerneltune/compose'
import { defineCommand } from '../../cli/command.ts'
import { keyValues, table } from '../../cli/output.ts'
import { TARGET_FLAGS, resolveHardware } from './target.ts'

export const catalogPreview = defineCommand({
  name: 'preview',
  summary: 'Show what a sweep would cover on a hardware + engine target, and why each pruned combination was removed.',
  flags: [
    ...TARGET_FLAGS,
    { name: 'mode', type: 'string', choices: ENUMERATION_MODES, description: 'Which combinations to list (counts are shown for both modes). Default: exhaustive, or quick when the exhaustive space has more than 500,000 combinations.' },
    { name: 'limit', type: 'integer', min: 0, default: 10, valueName: 'N', description: 'Combinations listed per group in human output (0 = all). --json always lists all.' },
    { name: 'all', type: 'boolean', description: 'List every combination in human output (same as --limit 0).' },
    { name: 'engine-check', type: 'boolean', default: true, description: "Ask the engine plugin's translator which legal combinations it refuses (--no-engine-check to skip)." },
  ],
  examples: ['kerneltune catalog preview --hardware h100-sxm --engine vllm', 'kerneltune catalog preview --hardware a100-sxm-80gb --mode quick --all', 'kerneltune catalog preview --hardware l4 --engine tgi --json'],
  jsonOutput:
    '{ catalog: { version, hash }, target: { hardware, engine, capability: { vendor, smVersion?, generation, fp8, bf16, cudaGraphs, notes } }, mode, dimensions: [{ id, values }], counts: { exhaustive, quick: { mode, total, legal, pruned, refused, byRule, refusedBy } }, engineRefusalsChecked, engineRefusalNote?, rules: [{ id, kind, reason, source, dimensions, engine?, removes }], legal: [{ hash, combo }], pruned: [{ hash, combo, rule, violations: [{ rule, kind, reason, source, dimensions, engine? }] }], refused: [{ hash, combo, refusal: { dimension, value, reason } }] }',
  async run(ctx) {
    const hardware = resolveHardware(ctx.flags.hardware)
    const engineName = ctx.flags.engine ?? 'vllm'
    const version = ctx.flags.version
    const session = await openCatalog(engineName, hardware, version)
    const target = { hardware, engine: engineName, ...(version ? { engineVersion: version } : {}) }
    const large = session.catalog.space(target, 'exhaustive').total > 500_000
    const mode = (ctx.flags.mode ?? (large ? 'quick' : 'exhaustive')) as (typeof ENUMERATION_MODES)[number]
    const refuse = ctx.flags.engineCheck === false ? undefined : session.refuse
    const preview = await session.catalog.previewAsync(target, { mode, ...(refuse ? { refuse } : {}) })
    const note = ctx.flags.engineCheck === false ? 'engine refusals skipped (--no-engine-check)' : undefined
    if (large && !ctx.flags.mode) ctx.io.stderr(`the exhaustive space is too large to classify one by one: previewing quick mode\n`)
    if (ctx.json) return ctx.printJson({ ...preview, ...(note ? { engineRefusalNote: note } : {}) })
    const limit = ctx.flags.all ? 0 : (ctx.flags.limit ?? 10)
    ctx.io.stdout(renderPreview(preview, hardware.name, limit, note))
  },
})

function take<T>(xs: readonly T[], limit: number): { shown: readonly T[]; more: number } {
  return limit === 0 || xs.length <= limit ? { shown: xs, more: 0 } : { shown: xs.slice(0, limit), more: xs.length - limit }
}

export function renderPreview(p: CatalogPreview, hardwareName: string, limit: number, note?: string): string {
  const cap = p.target.capability
  let out = keyValues([
    ['catalog', `${p.catalog.version} (${p.catalog.hash})`],
    ['hardware', `${hardwareName} [${p.target.hardware}]: ${cap.vendor}${cap.smVersion !== undefined ? ` sm_${cap.smVersion}` : ''} ${cap.generation}; fp8 ${cap.fp8 ? 'yes' : 'no'}, bf16 ${cap.bf16 ? 'yes' : 'no'}, graphs ${cap.cudaGraphs ? 'yes' : 'no'}`],
    ...cap.notes.map((n) => ['', n] as const),
    ['engine', p.target.engine],
    ['engine refusals', p.engineRefusalsChecked ? 'checked with the engine translator' : (note ?? 'not checked')],
    ['listing', `${p.mode} mode`],
  ])
  out += '\n' + table(
    (['exhaustive', 'quick'] as const).map((m) => { const c = p.counts[m]; return c.counted ? [m, c.total, c.legal, c.pruned, c.refused] : [m, c.total, 'not classified', '', ''] }),
    ['mode', 'combinations', 'legal', 'pruned', 'refused by engine'],
  )
  const active = p.rules.filter((r) => r.removes > 0)
  if (active.length) out += '\n' + table(active.map((r) => [r.id, r.kind, r.removes]), ['rule', 'kind', `removes (${p.mode})`])
  const idle = p.rules.length - active.length
  if (idle) out += `${idle} other rule(s) remove nothing on this target ("kerneltune catalog list" shows them all).\n`
  const groups = previewGroups(p)
  for (const [rule, xs] of groups.pruned) {
    const r = p.rules.find((y) => y.id === rule)
    const { shown, more } = take(xs, limit)
    out += `\nPruned by ${rule} (${r?.kind}; ${xs.length}): ${r?.reason}\n  source: ${r?.source}\n`
    for (const x of shown) {
      const also = x.violations.slice(1).map((v) => v.rule)
      out += `  ${x.hash}  ${comboText(x.combo)}${also.length ? `  (also ${also.join(', ')})` : ''}\n`
    }
    if (more) out += `  … and ${more} more (--all or --json lists them)\n`
  }
  for (const [key, xs] of groups.refused) {
    const { shown, more } = take(xs, limit)
    out += `\nRefused by engine ${p.target.engine} on ${key} (${xs.length}): ${xs[0]!.refusal.reason}\n`
    for (const x of shown) out += `  ${x.hash}  ${comboText(x.combo)}\n`
    if (more) out += `  … and ${more} more (--all or --json lists them)\n`
  }
  const { shown, more } = take(p.legal, limit)
  out += `\nLegal (${p.legal.length}):\n`
  for (const x of shown) out += `  ${x.hash}  ${comboText(x.combo)}\n`
  if (more) out += `  … and ${more} more (--all or --json lists them)\n`
  return out
}
