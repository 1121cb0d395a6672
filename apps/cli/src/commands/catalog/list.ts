/** `kerneltune catalog list`: the dimensions, their values and the rules, for one engine or all. */
import { engineKey } from '@kerneltune/catalog'
import { ENGINE_NAMES, openCatalog } from '@kerneltune/compose'
import { defineCommand } from '../../cli/command.ts'
import { keyValues, table } from '../../cli/output.ts'

export const catalogList = defineCommand({
  name: 'list',
  summary: 'List the catalog dimensions, values (default and quick-mode marks) and legality rules.',
  flags: [{ name: 'engine', type: 'string', valueName: 'NAME', description: 'Only what applies to this engine (core plus its extension); default: everything.' }],
  examples: ['kerneltune catalog list', `kerneltune catalog list --engine ${ENGINE_NAMES[0]} --json`],
  jsonOutput: '{ version, hash, engine?, extensions, dimensions: [{ id, title, description, values: [{ id, description }], defaultValue, quickValues?, engines?, contributedBy? }], rules: [{ id, kind, reason, source, dimensions, engine? }] }',
  async run(ctx) {
    const { catalog } = await openCatalog(ctx.flags.engine)
    const engine = ctx.flags.engine ? engineKey(ctx.flags.engine) : undefined
    const dimensions = engine ? catalog.dimensionsFor(engine) : catalog.snapshot.dimensions
    const ruleIds = new Set((engine ? catalog.rulesFor(engine) : catalog.rules).map((r) => r.id))
    const rules = catalog.snapshot.rules.filter((r) => ruleIds.has(r.id))
    if (ctx.json) {
      return ctx.printJson({ version: catalog.version, hash: catalog.hash, ...(engine ? { engine } : {}), extensions: catalog.snapshot.extensions, dimensions, rules })
    }
    ctx.io.stdout(keyValues([['catalog', `${catalog.version} (${catalog.hash})`], ['engine extensions', catalog.snapshot.extensions.join(', ') || 'none']]))
    ctx.io.stdout('\n')
    ctx.io.stdout(table(dimensions.map((d) => [
      d.id,
      d.contributedBy ?? 'core',
      d.values.map((v) => `${v.id}${v.id === d.defaultValue ? '*' : ''}${d.quickValues && !d.quickValues.includes(v.id) ? '' : '+'}`).join(' '),
    ]), ['dimension', 'from', 'values (* default, + in quick mode)']))
    ctx.io.stdout('\n')
    ctx.io.stdout(table(rules.map((r) => [r.id, r.kind, r.engine ?? 'core', r.dimensions.join('+'), r.reason]), ['rule', 'kind', 'from', 'reads', 'reason']))
    ctx.io.stdout('\nRun "kerneltune catalog explain <rule-id>" for a rule\'s source.\n')
  },
})
