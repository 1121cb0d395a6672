/**
 * The types both the catalog and its enumerator speak: what is enumerated for, the rules with
 * their engine, and why a combination was removed. Kept apart so `catalog.ts` (which builds an
 * enumerator) and `enumerate.ts` (which applies the catalog's rules) need not import each other.
 */
import type { HardwareSpec, LegalityRule } from '@kerneltune/core'

/** What the catalog enumerates for: a device and an engine plugin name. */
export interface CatalogTarget {
  readonly hardware: HardwareSpec
  readonly engine: string
  /** The engine release; rules with a `versions` range outside it do not apply. */
  readonly engineVersion?: string
}

/** A rule with the engine that contributed it (absent for core rules). */
export interface CatalogRule extends LegalityRule {
  readonly engine?: string
}

export interface RuleViolation {
  readonly rule: string
  readonly kind: 'illegal' | 'prune'
  readonly reason: string
  readonly source: string
  readonly dimensions: readonly string[]
  readonly engine?: string
}
