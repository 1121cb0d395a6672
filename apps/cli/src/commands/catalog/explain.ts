/**
 * `kerneltune catalog explain <rule | dimension | combo | hash>`: a rule with its source, a
 * dimension with its values, or whether one combination is legal on a target and why not.
 */
import { kerneltuneError, type Combo } from '@kerneltune/core'
import { comboText, explainCombo, parseComboText } from '@kerneltune/catalog'
import { openCatalog } from '@kerneltune/compose'
import { defineCommand } from '../../cli/command.ts'
import { keyValues, table } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'
import { TARGET_FLAGS, resolveHardware } from './target.ts'

export const catalogExplain = defineCommand({
  name: 'explain',
  summary: 'Explain a rule, a dimension, or why a combination (dimension=value,… or its hash) is legal, pruned or refused on a target.',
  positionals: ['RULE | DIMENSION | COMBO | HASH'],
  flags: [...TARGET_FLAGS],
  examples: [
    'kerneltune catalog explain fp8-needs-sm89',
    'kerneltune catalog explain attention_backend',
    'kerneltune catalog explain activation_dtype=fp8_e4m3,attention_backend=flash_attn_v3 --hardware a100-sxm-80gb',
    'kerneltune catalog explain 3f1c0a9e5b7d2c41 --hardware h100-sxm --engine vllm --json',
  ],
  jsonOutput:
    "rule: { kind: 'rule', rule: { id, kind, reason, source, dimensions, engine? } } · dimension: { kind: 'dimension', dimension } · combo: { kind: 'combo', hash, combo, target: { hardware, engine, capability }, status: 'legal'|'pruned'|'refused'|'invalid', legal, violations, issues, refusal?, engineRefusalsChecked, defaults } (exit 3 unless legal)",
  async run(ctx) {
    const subject = ctx.positionals[0]
    if (!subject || ctx.positionals.length > 1) throw kerneltuneError('INVALID_INPUT', 'explain takes one argument: a rule id, a dimension id, dimension=value,… or a 16-digit combo hash')
    const isCombo = subject.includes('=')
    const isHash = /^[0-9a-f]{16}$/.test(subject)
    const hardware = isCombo || isHash ? resolveHardware(ctx.flags.hardware) : undefined
    const engineName = ctx.flags.engine ?? 'vllm'
    const session = await openCatalog(isCombo || isHash ? engineName : undefined, hardware, ctx.flags.version)
    const { catalog } = session

    if (!isCombo && !isHash) {
      const rule = catalog.snapshot.rules.find((r) => r.id === subject)
      if (rule) {
        if (ctx.json) return ctx.printJson({ kind: 'rule', rule })
        ctx.io.stdout(keyValues([['rule', rule.id], ['kind', rule.kind === 'illegal' ? 'illegal (cannot run)' : 'prune (runs, known-bad)'], ['from', rule.engine ?? 'core catalog'], ['reads', rule.dimensions.join(', ')], ['reason', rule.reason], ['source', rule.source]]))
        return
      }
      const dim = catalog.dimension(subject)
      if (dim) {
        if (ctx.json) return ctx.printJson({ kind: 'dimension', dimension: dim })
        ctx.io.stdout(keyValues([['dimension', `${dim.id} (${dim.title})`], ['from', dim.contributedBy ?? 'core catalog'], ['description', dim.description], ['default', dim.defaultValue], ['quick mode', (dim.quickValues ?? dim.values.map((v) => v.id)).join(', ')]]))
        ctx.io.stdout('\n' + table(dim.values.map((v) => [v.id, v.description]), ['value', 'description']))
        return
      }
      throw kerneltuneError('NOT_FOUND', `"${subject}" is not a rule or dimension id; rules: ${catalog.rules.map((r) => r.id).join(', ')}; dimensions: ${catalog.dimensions.map((d) => d.id).join(', ')}`)
    }

    const target = { hardware: hardware!, engine: engineName, ...(ctx.flags.version ? { engineVersion: ctx.flags.version } : {}) }
    let combo: Combo
    if (isHash) {
      const found = [...catalog.enumerate(target)].find((e) => e.hash === subject)
      if (!found) throw kerneltuneError('NOT_FOUND', `no combination with hash ${subject} in the ${engineName} space; hashes come from "kerneltune catalog preview"`)
      combo = found.combo
    } else {
      combo = parseComboText(subject)
    }
    const { hash, status, check, refusal, defaults, context: ctxInfo } = await explainCombo(catalog, combo, target, session.refuse)
    const result = {
      kind: 'combo', hash, combo, target: { hardware: hardware!.id ?? hardware!.name, engine: ctxInfo.engine, capability: ctxInfo.capability },
      status, legal: status === 'legal', violations: check.violations, issues: check.issues, ...(refusal ? { refusal } : {}),
      engineRefusalsChecked: session.refuse !== undefined, defaults,
    }
    if (ctx.json) ctx.printJson(result)
    else {
      ctx.io.stdout(keyValues([
        ['combination', comboText(combo)],
        ['hash', result.hash],
        ['target', `${hardware!.name} (${ctxInfo.capability.vendor}${ctxInfo.capability.smVersion !== undefined ? ` sm_${ctxInfo.capability.smVersion}` : ''}), engine ${ctxInfo.engine}`],
        ['verdict', status],
        ...(Object.keys(defaults).length ? [['not given', `${Object.keys(defaults).join(', ')} (the engine default applies)`] as const] : []),
      ]))
      for (const i of check.issues) ctx.io.stdout(`\ninvalid: ${i}\n`)
      for (const v of check.violations) ctx.io.stdout(`\n${v.kind} by ${v.rule}: ${v.reason}\n  source: ${v.source}\n`)
      if (refusal) ctx.io.stdout(`\nrefused by engine ${ctxInfo.engine} on ${refusal.dimension}=${refusal.value}: ${refusal.reason}\n`)
    }
    return status === 'legal' ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
