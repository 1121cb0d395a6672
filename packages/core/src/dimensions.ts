/**
 * The six core kernel dimensions and their value ids, as plain constants: engines and
 * `kerneltune translate` read them at run time, so they live apart from the zod schemas
 * (`schemas/combo.ts` re-exports them next to `ComboSchema`) and cost no zod at start-up.
 */

/** The six dimensions of the core kernel catalog, as combo JSON keys. */
export const CORE_DIMENSION_IDS = [
  'attention_backend',
  'kv_layout',
  'matmul_path',
  'activation_dtype',
  'fusion_strategy',
  'cuda_graph',
] as const
export type CoreDimensionId = (typeof CORE_DIMENSION_IDS)[number]

/**
 * A combination: one value per dimension. Keys are dimension ids (the six core ones, or those an
 * engine plugin contributes through a catalog extension); a missing key means the engine's
 * default. Values are the catalog's value ids.
 */
export type Combo = Readonly<Record<string, string>>

/**
 * The value ids of the six core dimensions. The catalog package adds descriptions, legality
 * predicates and pruning; the ids live here so that engine plugins can validate combos without
 * depending on the catalog.
 */
export const CORE_DIMENSION_VALUES = {
  attention_backend: ['flash_attn_v2', 'flash_attn_v3', 'flashinfer', 'paged_attention', 'xformers', 'native'],
  kv_layout: ['contiguous', 'paged', 'chunked'],
  matmul_path: ['cublas', 'cutlass', 'triton', 'machete'],
  activation_dtype: ['fp16', 'bf16', 'fp8_e4m3', 'fp8_e5m2'],
  fusion_strategy: ['none', 'conservative', 'aggressive'],
  cuda_graph: ['off', 'per-shape', 'dynamic'],
} as const satisfies Record<CoreDimensionId, readonly string[]>

/**
 * The neutral value of each core dimension: the catalog's default and a run's baseline. A
 * combination that carries it for a dimension the engine does not control leaves that choice to
 * the engine (see `EnginePlugin.controls` and `applyControls`).
 */
export const CORE_DIMENSION_NEUTRAL = {
  attention_backend: 'flash_attn_v2',
  kv_layout: 'paged',
  matmul_path: 'cublas',
  activation_dtype: 'bf16',
  fusion_strategy: 'none',
  cuda_graph: 'per-shape',
} as const satisfies { [D in CoreDimensionId]: (typeof CORE_DIMENSION_VALUES)[D][number] }
