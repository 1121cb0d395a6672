/**
 * The catalog: core dimensions and rules plus the catalog extensions of engine plugins. An
 * extension's dimensions and rules apply only to its engine (or the engines its dimensions
 * name). The catalog is immutable; build a new one when plugins change.
 */
import { engineControls, kerneltuneError, ruleCoversVersion, type CatalogExtension, type CoreDimensionId, type Combo, type DimensionSpec, type LegalityContext, type Registry } from '@kerneltune/core'
import { capabilityOf } from './capability.ts'
import { CORE_DIMENSIONS } from './dimensions.ts'
import { createEnumerator, type Enumerator } from './enumerate.ts'
import { CORE_RULES } from './rules.ts'
import { CATALOG_VERSION, deepFreeze, makeSnapshot, type CatalogSnapshot, type SnapshotDimension } from './snapshot.ts'
import type { CatalogRule, CatalogTarget, RuleViolation } from './target.ts'

export interface ComboCheck {
  readonly legal: boolean
  readonly violations: readonly RuleViolation[]
  /** Unknown dimensions or values for this engine; a combo with issues is not legal. */
  readonly issues: readonly string[]
}

export interface CatalogOptions {
  readonly extensions?: readonly { readonly engine: string; readonly extension: CatalogExtension }[]
  /**
   * Engine → the core dimensions it controls (`EnginePlugin.controls`). The others are pinned to
   * their neutral value for that engine: one value, not swept. Engines not named control all six.
   */
  readonly controls?: Readonly<Record<string, readonly CoreDimensionId[]>>
  /** Recorded in the snapshot; omitted by default so that equal catalogs have equal snapshots. */
  readonly createdAt?: string
}

export interface Catalog extends Enumerator {
  readonly version: string
  readonly hash: string
  readonly snapshot: CatalogSnapshot
  /** Every dimension, core first, then each extension's. */
  readonly dimensions: readonly SnapshotDimension[]
  readonly rules: readonly CatalogRule[]
  /** The dimensions an engine's combinations have, in enumeration order. */
  dimensionsFor(engine: string): readonly SnapshotDimension[]
  /** The rules that apply to an engine: core rules and its own extension's. */
  rulesFor(engine: string): readonly CatalogRule[]
  rule(id: string): CatalogRule | undefined
  dimension(id: string): SnapshotDimension | undefined
  context(target: CatalogTarget): LegalityContext
  /** Checks one combination; missing dimensions mean the engine default and are not issues. */
  check(combo: Combo, target: CatalogTarget): ComboCheck
}

/** Registry names may carry a kind prefix ("engine:vllm"); the catalog compares bare names. */
export const engineKey = (name: string): string => name.replace(/^engine:/, '').toLowerCase()

function validateDimension(d: DimensionSpec, who: string): void {
  const bad = (msg: string) => kerneltuneError('INVALID_PLUGIN', `${who}: dimension ${d.id}: ${msg}`, { plugin: who })
  if (!/^[a-z][a-z0-9_]*$/.test(d.id)) throw bad('ids are snake_case')
  const ids = d.values.map((v) => v.id)
  if (ids.length === 0) throw bad('needs at least one value')
  if (new Set(ids).size !== ids.length) throw bad('value ids must be unique')
  if (!ids.includes(d.defaultValue)) throw bad(`defaultValue "${d.defaultValue}" is not one of its values`)
  const stray = (d.quickValues ?? []).filter((v) => !ids.includes(v))
  if (stray.length) throw bad(`quickValues ${stray.join(', ')} are not among its values`)
  if (d.quickValues && d.quickValues.length === 0) throw bad('quickValues, when given, needs at least one value')
}

export function createCatalog(options: CatalogOptions = {}): Catalog {
  const dimensions: SnapshotDimension[] = CORE_DIMENSIONS.map((d) => ({ ...d }))
  const rules: CatalogRule[] = [...CORE_RULES]
  const coreDims = new Map<string, readonly string[]>()
  const extensions: string[] = []
  for (const { engine, extension } of options.extensions ?? []) {
    const key = engineKey(engine)
    const who = `engine ${engine}`
    if (extensions.includes(key)) throw kerneltuneError('INVALID_PLUGIN', `${who}: two catalog extensions for the same engine`, { plugin: engine })
    extensions.push(key)
    if (extension.coreDimensions) {
      const unknown = extension.coreDimensions.filter((id) => !CORE_DIMENSIONS.some((d) => d.id === id))
      if (unknown.length) throw kerneltuneError('INVALID_PLUGIN', `${who}: coreDimensions names unknown core dimensions ${unknown.join(', ')}`, { plugin: engine })
      coreDims.set(key, extension.coreDimensions)
    }
    for (const d of extension.dimensions) {
      validateDimension(d, who)
      if (dimensions.some((x) => x.id === d.id)) throw kerneltuneError('INVALID_PLUGIN', `${who}: dimension ${d.id} already exists in the catalog; pick another id`, { plugin: engine })
      dimensions.push({ ...d, engines: (d.engines ?? [engine]).map(engineKey), contributedBy: key })
    }
    for (const r of extension.rules) {
      if (rules.some((x) => x.id === r.id)) throw kerneltuneError('INVALID_PLUGIN', `${who}: rule ${r.id} already exists in the catalog; rule ids must be unique`, { plugin: engine })
      rules.push({ id: r.id, kind: r.kind, reason: r.reason, source: r.source, dimensions: r.dimensions, engine: key, ...(r.versions ? { versions: r.versions } : {}), violates: (c, ctx) => r.violates(c, ctx) })
    }
  }
  // Only engines that leave a dimension to themselves change enumeration, so only they are recorded.
  const pinned = new Map<string, string[]>()
  for (const [engine, controlled] of Object.entries(options.controls ?? {})) {
    const unknown = controlled.filter((id) => !CORE_DIMENSIONS.some((d) => d.id === id))
    if (unknown.length) throw kerneltuneError('INVALID_PLUGIN', `engine ${engine}: controls names unknown core dimensions ${unknown.join(', ')}`, { plugin: engine })
    const left = CORE_DIMENSIONS.filter((d) => !controlled.includes(d.id as CoreDimensionId)).map((d) => d.id)
    if (left.length) pinned.set(engineKey(engine), left)
  }
  const snapshot = makeSnapshot({
    version: CATALOG_VERSION,
    dimensions,
    rules: rules.map(({ id, kind, reason, source, dimensions: dims, engine, versions }) => ({ id, kind, reason, source, dimensions: dims, ...(engine ? { engine } : {}), ...(versions ? { versions } : {}) })),
    extensions,
    ...(pinned.size ? { uncontrolled: Object.fromEntries([...pinned].sort(([a], [b]) => a.localeCompare(b))) } : {}),
    ...(options.createdAt ? { createdAt: options.createdAt } : {}),
  })
  deepFreeze(dimensions)
  Object.freeze(rules)

  const dimensionsFor = (engine: string): readonly SnapshotDimension[] => {
    const key = engineKey(engine)
    const core = coreDims.get(key)
    const left = pinned.get(key) ?? []
    return dimensions
      .filter((d) => (d.contributedBy === undefined ? !core || core.includes(d.id) : d.engines!.includes(key)))
      .map((d) => (left.includes(d.id) ? pin(d) : d))
  }
  const rulesFor = (engine: string): readonly CatalogRule[] => {
    const key = engineKey(engine)
    return rules.filter((r) => r.engine === undefined || r.engine === key)
  }
  const context = (target: CatalogTarget): LegalityContext => ({
    hardware: target.hardware, engine: engineKey(target.engine), capability: capabilityOf(target.hardware), ...(target.engineVersion ? { engineVersion: target.engineVersion } : {}),
  })

  const violationsOf = (combo: Combo, ctx: LegalityContext, applicable: readonly CatalogRule[]): RuleViolation[] => {
    const out: RuleViolation[] = []
    for (const r of applicable) {
      if (!ruleCoversVersion(r, ctx.engineVersion)) continue
      let violated: boolean
      try {
        violated = r.violates(combo, ctx)
      } catch (cause) {
        throw kerneltuneError('PLUGIN_ERROR', `catalog rule ${r.id}${r.engine ? ` (engine ${r.engine})` : ''} threw: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, ...(r.engine ? { plugin: r.engine } : {}), hook: 'violates' })
      }
      if (violated) out.push({ rule: r.id, kind: r.kind, reason: r.reason, source: r.source, dimensions: r.dimensions, ...(r.engine ? { engine: r.engine } : {}) })
    }
    return out
  }

  const check = (combo: Combo, target: CatalogTarget): ComboCheck => {
    const dims = dimensionsFor(target.engine)
    const issues: string[] = []
    for (const [k, v] of Object.entries(combo)) {
      const d = dims.find((x) => x.id === k)
      if (!d) issues.push(`${k} is not a dimension for engine ${engineKey(target.engine)}; known: ${dims.map((x) => x.id).join(', ')}`)
      else if (pinned.get(engineKey(target.engine))?.includes(k) && v !== d.defaultValue) issues.push(`${k}=${v}: engine ${engineKey(target.engine)} has no control for ${k}; only ${d.defaultValue} (left to the engine) is accepted`)
      else if (!d.values.some((x) => x.id === v)) issues.push(`${k}=${v} is not a value of ${k}; accepted: ${d.values.map((x) => x.id).join(', ')}`)
    }
    const violations = violationsOf(combo, context(target), rulesFor(target.engine))
    return { legal: issues.length === 0 && violations.length === 0, violations, issues }
  }

  const enumerator = createEnumerator({ dimensionsFor, rulesFor, context, violationsOf, version: CATALOG_VERSION, hash: snapshot.hash })
  return Object.freeze({
    ...enumerator,
    version: CATALOG_VERSION,
    hash: snapshot.hash,
    snapshot,
    dimensions,
    rules,
    dimensionsFor,
    rulesFor,
    rule: (id: string) => rules.find((r) => r.id === id),
    dimension: (id: string) => dimensions.find((d) => d.id === id),
    context,
    check,
  })
}

// An uncontrolled dimension keeps only its neutral value (frozen copies: dimensions are shared).
const pinCache = new WeakMap<SnapshotDimension, SnapshotDimension>()
function pin(d: SnapshotDimension): SnapshotDimension {
  let got = pinCache.get(d)
  if (!got) {
    got = deepFreeze({ ...d, values: d.values.filter((v) => v.id === d.defaultValue), quickValues: [d.defaultValue] })
    pinCache.set(d, got)
  }
  return got
}

/**
 * A catalog with every catalog extension the registry's engine plugins contribute, and each
 * engine's `controls` (uncontrolled core dimensions are pinned to their neutral value).
 */
export function buildCatalog(registry: Pick<Registry, 'catalogExtensions'> & { list?: Registry['list'] }, options: Omit<CatalogOptions, 'extensions' | 'controls'> = {}): Catalog {
  const engines = registry.list ? registry.list('engine') : []
  const controls = Object.fromEntries(engines.map((e) => [e.name, engineControls(e)]))
  return createCatalog({ ...options, extensions: registry.catalogExtensions(), controls })
}
