import type { Combo } from '../dimensions.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'

/** One value of a catalog dimension. */
export interface DimensionValue {
  readonly id: string
  readonly description: string
}

/** A dimension of the search space: the six core ones, or one an engine plugin contributes. */
export interface DimensionSpec {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly values: readonly DimensionValue[]
  /** The value that stands for "what the engine does by default". */
  readonly defaultValue: string
  /** Engine plugin names this dimension applies to; absent means every engine. */
  readonly engines?: readonly string[]
  /** Values kept in quick mode; absent means all. */
  readonly quickValues?: readonly string[]
}

/** What a legality predicate or pruning rule sees. */
export interface LegalityContext {
  readonly hardware: HardwareSpec
  readonly engine: string
  /** The engine release enumerated for, when the caller names one (see `LegalityRule.versions`). */
  readonly engineVersion?: string
  /** The hardware capability model the catalog derived for this device. */
  readonly capability: HardwareCapability
}

/**
 * What the catalog knows about a device's abilities. `smVersion` is NVIDIA compute capability
 * × 10 (sm_90 → 90); undefined on other vendors.
 */
export interface HardwareCapability {
  readonly vendor: HardwareSpec['vendor']
  readonly smVersion?: number
  readonly generation: string
  readonly fp8: boolean
  readonly bf16: boolean
  readonly cudaGraphs: boolean
  readonly notes: readonly string[]
}

/**
 * A rule that removes combinations. `illegal` predicates remove what cannot run; `prune` rules
 * remove what runs but is known to be bad. `violates` returns true when the combination is
 * removed. Every rule says why, and where that fact comes from.
 */
export interface LegalityRule {
  readonly id: string
  readonly kind: 'illegal' | 'prune'
  readonly reason: string
  readonly source: string
  /** The dimensions the rule reads; the preview names them. */
  readonly dimensions: readonly string[]
  /**
   * The engine releases the fact holds for: `from` inclusive, `until` exclusive, compared as
   * dotted numbers (a leading `v` or `b` is ignored: `b6343`, `v0.13.0`). Absent: every release.
   * When the target names no version the rule applies, as for every release it covers.
   */
  readonly versions?: { readonly from?: string; readonly until?: string }
  violates(combo: Combo, context: LegalityContext): boolean
}

/** Compares two release names as dotted numbers (`v`/`b` prefixes ignored); negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^[vb]/i, '').split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x))
  const pa = parts(a)
  const pb = parts(b)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0
    const y = pb[i] ?? 0
    if (x === y) continue
    if (typeof x === 'number' && typeof y === 'number') return x - y
    return String(x) < String(y) ? -1 : 1
  }
  return 0
}

/** Whether a rule applies to an engine release (always, when either has no version). */
export function ruleCoversVersion(rule: Pick<LegalityRule, 'versions'>, version: string | undefined): boolean {
  if (!rule.versions || version === undefined) return true
  const { from, until } = rule.versions
  return (from === undefined || compareVersions(version, from) >= 0) && (until === undefined || compareVersions(version, until) < 0)
}

/** Dimensions and rules that an engine plugin adds to the catalog for its own engine. */
export interface CatalogExtension {
  readonly dimensions: readonly DimensionSpec[]
  readonly rules: readonly LegalityRule[]
  /**
   * The core dimensions this engine's combinations use; absent means all six. An engine whose
   * kernels are not chosen along the CUDA-centred core axes (llama.cpp) lists only the ones it
   * maps, or none, so the catalog does not enumerate values it would ignore.
   */
  readonly coreDimensions?: readonly string[]
}
