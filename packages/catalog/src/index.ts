/**
 * @module @kerneltune/catalog
 * The kernel catalog: six dimensions (attention backend, KV layout, matmul path, activation
 * dtype, fusion, CUDA graphs), a hardware capability model, legality predicates and pruning rules
 * with reasons and sources, engine plugins' catalog extensions, frozen versioned snapshots, and
 * lazy enumeration with counts and a preview that explains every pruned combination.
 *
 * @example
 * ```ts
 * import { createCatalog } from '@kerneltune/catalog'
 * import type { HardwareSpec } from '@kerneltune/core'
 * const catalog = createCatalog()
 * const hardware: HardwareSpec = { name: 'NVIDIA A100', vendor: 'nvidia', kind: 'gpu', computeCapability: '8.0', memBwGbs: 2039, fp16Tflops: 312, unifiedMemory: false, sources: [] }
 * const preview = catalog.preview({ hardware, engine: 'vllm' }, { mode: 'quick' })
 * console.log(preview.counts.quick.legal, preview.pruned[0]?.rule) // 96 'fp8-needs-sm89'
 * ```
 */
export { buildCatalog, createCatalog, engineKey, type Catalog, type CatalogOptions, type ComboCheck } from './catalog.ts'
export type { CatalogRule, CatalogTarget, RuleViolation } from './target.ts'
export { capabilityOf, nvidiaGeneration, parseComputeCapability } from './capability.ts'
export { CORE_DIMENSIONS } from './dimensions.ts'
export { CORE_RULES } from './rules.ts'
export { canonicalJson, comboHash, fnv1a64 } from './hash.ts'
export { comboText, engineRefuseHook, explainCombo, parseComboText, previewGroups, type ComboExplanation } from './explain.ts'
export {
  CATALOG_VERSION,
  CatalogSnapshotSchema,
  deepFreeze,
  makeSnapshot,
  parseSnapshot,
  verifySnapshot,
  type CatalogSnapshot,
  type SnapshotDimension,
  type SnapshotRule,
} from './snapshot.ts'
export {
  ENUMERATION_MODES,
  type AsyncRefuseHook,
  type CatalogCounts,
  type CatalogPreview,
  type ComboStatus,
  type EngineRefusal,
  type EnumeratedCombo,
  type EnumerateOptions,
  type EnumerationMode,
  type Enumerator,
  type RefuseHook,
} from './enumerate.ts'
