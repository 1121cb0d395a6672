/**
 * What `catalog explain` and `catalog preview` say about combinations: the combo text people
 * write (`attention_backend=flash_attn_v3,kv_layout=paged`), one combination's verdict on a
 * target (legal, pruned by a rule, refused by the engine, or invalid) with the engine defaults
 * that fill what it leaves out, and a preview's pruned and refused combinations grouped by what
 * removed them.
 */
import { KerneltuneError, type Combo, type EnginePlugin, type LegalityContext, type TranslateContext } from '@kerneltune/core'
import type { Catalog, ComboCheck } from './catalog.ts'
import type { AsyncRefuseHook, CatalogPreview, EngineRefusal } from './enumerate.ts'
import { comboHash } from './hash.ts'
import type { CatalogTarget } from './target.ts'

/** "attention_backend=flash_attn_v3,kv_layout=paged" → a combo; INVALID_INPUT on bad syntax. */
export function parseComboText(text: string): Combo {
  const combo: Record<string, string> = {}
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z][a-z0-9_]*)=([^=\s]+)$/.exec(part)
    if (!m) throw new KerneltuneError('INVALID_INPUT', `"${part}" is not dimension=value (e.g. attention_backend=flash_attn_v3,kv_layout=paged)`)
    if (combo[m[1]!] !== undefined) throw new KerneltuneError('INVALID_INPUT', `dimension ${m[1]} is given twice`)
    combo[m[1]!] = m[2]!
  }
  if (Object.keys(combo).length === 0) throw new KerneltuneError('INVALID_INPUT', 'empty combination; write dimension=value pairs separated by commas')
  return combo
}

/** A combo as `dimension=value,…`, the form parseComboText reads. */
export const comboText = (combo: Combo): string => Object.entries(combo).map(([k, v]) => `${k}=${v}`).join(',')

/** An engine's translate refusals as the catalog's refuse hook. */
export function engineRefuseHook(engine: EnginePlugin, context: TranslateContext = {}): AsyncRefuseHook {
  return async (combo: Combo) => {
    const r = await engine.translate(combo, context)
    return r.ok ? undefined : { dimension: r.dimension, value: r.value, reason: r.reason }
  }
}

export interface ComboExplanation {
  readonly hash: string
  readonly status: 'legal' | 'pruned' | 'refused' | 'invalid'
  readonly check: ComboCheck
  readonly refusal: EngineRefusal | undefined
  /** The engine default of each dimension the combo leaves out. */
  readonly defaults: Record<string, string>
  readonly context: LegalityContext
}

/** One combination's verdict on a target; the engine is asked only about a legal one. */
export async function explainCombo(catalog: Catalog, combo: Combo, target: CatalogTarget, refuse?: AsyncRefuseHook): Promise<ComboExplanation> {
  const check = catalog.check(combo, target)
  const refusal = check.legal && refuse ? await refuse(combo) : undefined
  const status = check.issues.length ? 'invalid' : check.violations.length ? 'pruned' : refusal ? 'refused' : 'legal'
  const defaults = Object.fromEntries(catalog.dimensionsFor(target.engine).filter((d) => combo[d.id] === undefined).map((d) => [d.id, d.defaultValue]))
  return { hash: comboHash(combo), status, check, refusal, defaults, context: catalog.context(target) }
}

type Pruned = CatalogPreview['pruned'][number]
type Refused = CatalogPreview['refused'][number]

/** A preview's pruned combinations by the rule that removed them, and refused ones by `dimension=value`. */
export function previewGroups(p: CatalogPreview): { pruned: Map<string, Pruned[]>; refused: Map<string, Refused[]> } {
  const pruned = new Map<string, Pruned[]>()
  for (const x of p.pruned) pruned.set(x.rule, [...(pruned.get(x.rule) ?? []), x])
  const refused = new Map<string, Refused[]>()
  for (const x of p.refused) {
    const key = `${x.refusal.dimension}=${x.refusal.value}`
    refused.set(key, [...(refused.get(key) ?? []), x])
  }
  return { pruned, refused }
}
