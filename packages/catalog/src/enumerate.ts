/**
 * Lazy enumeration of a target's combinations (an odometer over the dimension values, last
 * dimension fastest), with each combination classified as legal, pruned (by which rules) or
 * refused (by the engine's translator, through an optional hook), plus counts per mode and the
 * preview the CLI prints.
 */
import { kerneltuneError, ruleCoversVersion, type Combo, type HardwareCapability, type LegalityContext, type MaybePromise } from '@kerneltune/core'
import type { CatalogRule, CatalogTarget, RuleViolation } from './target.ts'
import { comboHash } from './hash.ts'
import type { SnapshotDimension } from './snapshot.ts'

export const ENUMERATION_MODES = ['exhaustive', 'quick'] as const
export type EnumerationMode = (typeof ENUMERATION_MODES)[number]

/** Why an engine cannot express a combination (the shape of an engine plugin's Refusal). */
export interface EngineRefusal {
  readonly dimension: string
  readonly value: string
  readonly reason: string
}
export type RefuseHook = (combo: Combo) => EngineRefusal | undefined
export type AsyncRefuseHook = (combo: Combo) => MaybePromise<EngineRefusal | undefined>

export type ComboStatus = 'legal' | 'pruned' | 'refused'

export interface EnumeratedCombo {
  readonly combo: Combo
  readonly hash: string
  readonly status: ComboStatus
  /** Every rule the combo violates; empty when legal or refused. */
  readonly violations: readonly RuleViolation[]
  readonly refusal?: EngineRefusal
}

export interface EnumerateOptions<H = RefuseHook> {
  readonly mode?: EnumerationMode
  /** Asked for combos that pass every rule; a refusal marks the combo `refused`. */
  readonly refuse?: H
  /**
   * Preview only: the largest exhaustive space it classifies combination by combination (default
   * 500,000). Beyond it, an exhaustive preview is refused and a quick one scans the quick space
   * alone, leaving the exhaustive counts uncounted (`counted: false`).
   */
  readonly maxScan?: number
}

export interface CatalogCounts {
  readonly mode: EnumerationMode
  /** Size of the cartesian product before any rule. */
  readonly total: number
  readonly legal: number
  readonly pruned: number
  readonly refused: number
  /** Rule id → combos it removes (a combo violating two rules counts for both). */
  readonly byRule: Readonly<Record<string, number>>
  /** "dimension=value" → combos the engine refused on it. */
  readonly refusedBy: Readonly<Record<string, number>>
  /** False when the space was too large to classify (see `maxScan`): only `total` is known. */
  readonly counted: boolean
}

export interface CatalogPreview {
  readonly catalog: { readonly version: string; readonly hash: string }
  readonly target: { readonly hardware: string; readonly engine: string; readonly capability: HardwareCapability }
  readonly mode: EnumerationMode
  readonly dimensions: readonly { readonly id: string; readonly values: readonly string[] }[]
  readonly counts: { readonly exhaustive: CatalogCounts; readonly quick: CatalogCounts }
  readonly engineRefusalsChecked: boolean
  /** The applicable rules with how many combos (in `mode`) each removes. */
  readonly rules: readonly (Omit<RuleViolation, 'rule'> & { readonly id: string; readonly removes: number })[]
  readonly legal: readonly { readonly hash: string; readonly combo: Combo }[]
  /** Each pruned combo with the first rule that removed it and every rule it violates. */
  readonly pruned: readonly { readonly hash: string; readonly combo: Combo; readonly rule: string; readonly violations: readonly RuleViolation[] }[]
  readonly refused: readonly { readonly hash: string; readonly combo: Combo; readonly refusal: EngineRefusal }[]
}

export interface Enumerator {
  /** The dimensions and values swept in a mode, and the product size. */
  space(target: CatalogTarget, mode?: EnumerationMode): { dimensions: { id: string; values: string[] }[]; total: number }
  enumerate(target: CatalogTarget, options?: EnumerateOptions): Generator<EnumeratedCombo>
  enumerateAsync(target: CatalogTarget, options?: EnumerateOptions<AsyncRefuseHook>): AsyncGenerator<EnumeratedCombo>
  /** Only the legal combinations, lazily. */
  legalCombos(target: CatalogTarget, options?: EnumerateOptions): Generator<{ combo: Combo; hash: string }>
  count(target: CatalogTarget, options?: EnumerateOptions): CatalogCounts
  preview(target: CatalogTarget, options?: EnumerateOptions): CatalogPreview
  previewAsync(target: CatalogTarget, options?: EnumerateOptions<AsyncRefuseHook>): Promise<CatalogPreview>
}

export interface EnumeratorDeps {
  readonly version: string
  readonly hash: string
  dimensionsFor(engine: string): readonly SnapshotDimension[]
  rulesFor(engine: string): readonly CatalogRule[]
  context(target: CatalogTarget): LegalityContext
  violationsOf(combo: Combo, ctx: LegalityContext, rules: readonly CatalogRule[]): RuleViolation[]
}

function checkMode(mode: string): asserts mode is EnumerationMode {
  if (!(ENUMERATION_MODES as readonly string[]).includes(mode)) {
    throw kerneltuneError('INVALID_INPUT', `unknown enumeration mode "${mode}"; accepted: ${ENUMERATION_MODES.join(', ')}`)
  }
}

function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function'
}

function emptyCounts(mode: EnumerationMode, total: number) {
  return { mode, total, legal: 0, pruned: 0, refused: 0, byRule: {} as Record<string, number>, refusedBy: {} as Record<string, number>, counted: true }
}

function tally(counts: ReturnType<typeof emptyCounts>, e: EnumeratedCombo): void {
  counts[e.status]++
  for (const v of e.violations) counts.byRule[v.rule] = (counts.byRule[v.rule] ?? 0) + 1
  if (e.refusal) {
    const key = `${e.refusal.dimension}=${e.refusal.value}`
    counts.refusedBy[key] = (counts.refusedBy[key] ?? 0) + 1
  }
}

export function createEnumerator(deps: EnumeratorDeps): Enumerator {
  const space = (target: CatalogTarget, mode: EnumerationMode = 'exhaustive') => {
    checkMode(mode)
    const dimensions = deps.dimensionsFor(target.engine).map((d) => ({
      id: d.id,
      values: mode === 'quick' && d.quickValues ? [...d.quickValues] : d.values.map((v) => v.id),
    }))
    return { dimensions, total: dimensions.reduce((n, d) => n * d.values.length, 1) }
  }

  // Combos with their rule violations, before any engine refusal.
  function* raw(target: CatalogTarget, mode: EnumerationMode): Generator<{ combo: Combo; hash: string; violations: RuleViolation[] }> {
    const { dimensions } = space(target, mode)
    const ctx = deps.context(target)
    const rules = deps.rulesFor(target.engine)
    if (dimensions.some((d) => d.values.length === 0)) return
    const idx = dimensions.map(() => 0)
    while (true) {
      const combo: Record<string, string> = {}
      for (let i = 0; i < dimensions.length; i++) combo[dimensions[i]!.id] = dimensions[i]!.values[idx[i]!]!
      const frozen = Object.freeze(combo)
      yield { combo: frozen, hash: comboHash(frozen), violations: deps.violationsOf(frozen, ctx, rules) }
      let i = dimensions.length - 1
      while (i >= 0 && ++idx[i]! === dimensions[i]!.values.length) idx[i--] = 0
      if (i < 0) return
    }
  }

  const finish = (r: { combo: Combo; hash: string; violations: RuleViolation[] }, refusal: EngineRefusal | undefined): EnumeratedCombo => {
    if (r.violations.length > 0) return { ...r, status: 'pruned' }
    if (refusal) return { ...r, status: 'refused', refusal: { dimension: refusal.dimension, value: refusal.value, reason: refusal.reason } }
    return { ...r, status: 'legal' }
  }

  function* enumerate(target: CatalogTarget, options: EnumerateOptions = {}): Generator<EnumeratedCombo> {
    for (const r of raw(target, options.mode ?? 'exhaustive')) {
      let refusal: EngineRefusal | undefined
      if (r.violations.length === 0 && options.refuse) {
        const got = options.refuse(r.combo) as MaybePromise<EngineRefusal | undefined>
        if (isPromise(got)) throw kerneltuneError('INVALID_INPUT', 'the refuse hook returned a promise; use enumerateAsync or previewAsync')
        refusal = got
      }
      yield finish(r, refusal)
    }
  }

  async function* enumerateAsync(target: CatalogTarget, options: EnumerateOptions<AsyncRefuseHook> = {}): AsyncGenerator<EnumeratedCombo> {
    for (const r of raw(target, options.mode ?? 'exhaustive')) {
      const refusal = r.violations.length === 0 && options.refuse ? await options.refuse(r.combo) : undefined
      yield finish(r, refusal)
    }
  }

  function* legalCombos(target: CatalogTarget, options: EnumerateOptions = {}) {
    for (const e of enumerate(target, options)) if (e.status === 'legal') yield { combo: e.combo, hash: e.hash }
  }

  const count = (target: CatalogTarget, options: EnumerateOptions = {}): CatalogCounts => {
    const mode = options.mode ?? 'exhaustive'
    const counts = emptyCounts(mode, space(target, mode).total)
    for (const e of enumerate(target, options)) tally(counts, e)
    return counts
  }

  // One exhaustive pass serves both modes: quick values are a subset of every dimension's values.
  const collector = (target: CatalogTarget, mode: EnumerationMode, refusalsChecked: boolean, scanExhaustive: boolean) => {
    const quick = space(target, 'quick')
    const quickSets = new Map(quick.dimensions.map((d) => [d.id, new Set(d.values)]))
    const inQuick = (c: Combo) => Object.entries(c).every(([k, v]) => quickSets.get(k)?.has(v) ?? false)
    const ex = emptyCounts('exhaustive', space(target, 'exhaustive').total)
    if (!scanExhaustive) ex.counted = false
    const qc = emptyCounts('quick', quick.total)
    const legal: { hash: string; combo: Combo }[] = []
    const pruned: { hash: string; combo: Combo; rule: string; violations: readonly RuleViolation[] }[] = []
    const refused: { hash: string; combo: Combo; refusal: EngineRefusal }[] = []
    return {
      add(e: EnumeratedCombo): void {
        if (scanExhaustive) tally(ex, e)
        const q = inQuick(e.combo)
        if (q) tally(qc, e)
        if (mode === 'quick' && !q) return
        if (e.status === 'legal') legal.push({ hash: e.hash, combo: e.combo })
        else if (e.status === 'pruned') pruned.push({ hash: e.hash, combo: e.combo, rule: e.violations[0]!.rule, violations: e.violations })
        else refused.push({ hash: e.hash, combo: e.combo, refusal: e.refusal! })
      },
      result(): CatalogPreview {
        const shown = mode === 'quick' ? qc : ex
        const ctx = deps.context(target)
        return {
          catalog: { version: deps.version, hash: deps.hash },
          target: { hardware: target.hardware.id ?? target.hardware.name, engine: ctx.engine, capability: ctx.capability },
          mode,
          dimensions: space(target, mode).dimensions,
          counts: { exhaustive: ex, quick: qc },
          engineRefusalsChecked: refusalsChecked,
          rules: deps.rulesFor(target.engine).filter((r) => ruleCoversVersion(r, target.engineVersion)).map((r) => ({
            id: r.id, kind: r.kind, reason: r.reason, source: r.source, dimensions: r.dimensions, ...(r.engine ? { engine: r.engine } : {}), removes: shown.byRule[r.id] ?? 0,
          })),
          legal,
          pruned,
          refused,
        }
      },
    }
  }

  // One pass over the exhaustive space serves both modes, unless that space is too large: then a
  // quick preview scans only the quick space and an exhaustive one is refused with the numbers.
  const plan = (target: CatalogTarget, options: EnumerateOptions<unknown>) => {
    const mode = options.mode ?? 'exhaustive'
    checkMode(mode)
    const total = space(target, 'exhaustive').total
    const scanExhaustive = total <= (options.maxScan ?? 500_000)
    if (!scanExhaustive && mode === 'exhaustive') {
      throw kerneltuneError('INVALID_INPUT', `the exhaustive space of ${target.engine} has ${total.toLocaleString('en-US')} combinations, too many to preview one by one; preview quick mode (${space(target, 'quick').total.toLocaleString('en-US')} combinations) instead`)
    }
    const c = collector(target, mode, options.refuse !== undefined, scanExhaustive)
    const scan: EnumerateOptions<never> = { mode: scanExhaustive ? 'exhaustive' : 'quick' }
    return { c, scan }
  }

  const preview = (target: CatalogTarget, options: EnumerateOptions = {}): CatalogPreview => {
    const { c, scan } = plan(target, options)
    for (const e of enumerate(target, { ...scan, ...(options.refuse ? { refuse: options.refuse } : {}) })) c.add(e)
    return c.result()
  }

  const previewAsync = async (target: CatalogTarget, options: EnumerateOptions<AsyncRefuseHook> = {}): Promise<CatalogPreview> => {
    const { c, scan } = plan(target, options)
    for await (const e of enumerateAsync(target, { ...scan, ...(options.refuse ? { refuse: options.refuse } : {}) })) c.add(e)
    return c.result()
  }

  return { space, enumerate, enumerateAsync, legalCombos, count, preview, previewAsync }
}
