/**
 * A sweep's plan (moved out of the CLI in issue 36): a space enumerated through the catalog as an
 * engine's extension, less the combination that spells out the defaults (the baseline itself,
 * measured once). The in-process, serving and ONNX Runtime sweeps differ only in their space,
 * extension, defaults and engine, which the caller names.
 */
import { createCatalog } from '@kerneltune/catalog'
import type { CatalogExtension, Combo, HardwareSpec } from '@kerneltune/core'

/** How long a sweep runs: quick (minutes on a small machine) or standard. */
export type SweepPlanMode = 'quick' | 'standard'

export interface SweepPlan {
  readonly mode: SweepPlanMode
  /** Dimension id → the values tried. */
  readonly space: Readonly<Record<string, readonly string[]>>
  readonly candidates: readonly { readonly combo: Combo; readonly hash: string }[]
  readonly pruned: readonly { readonly combo: Combo; readonly rule: string }[]
  readonly catalog: { readonly version: string; readonly hash: string }
  /** The catalog snapshot the plan was enumerated from, stored with the sweep's run. */
  readonly snapshot: unknown
}

/** `nonDefault` gives a combination's settings that differ from the engine's defaults: one with none is the baseline, not a candidate. */
export function planThroughCatalog(mode: SweepPlanMode, space: SweepPlan['space'], extension: CatalogExtension, nonDefault: (combo: Combo) => Combo, hardware: HardwareSpec, engine: string): SweepPlan {
  const catalog = createCatalog({ extensions: [{ engine, extension }] })
  const preview = catalog.preview({ hardware, engine }, { mode: 'quick' })
  return {
    mode,
    space,
    candidates: preview.legal.filter((l) => Object.keys(nonDefault(l.combo)).length > 0).map((l) => ({ combo: l.combo, hash: l.hash })),
    pruned: preview.pruned.map((p) => ({ combo: p.combo, rule: p.rule })),
    catalog: { version: catalog.version, hash: catalog.hash },
    snapshot: catalog.snapshot,
  }
}
