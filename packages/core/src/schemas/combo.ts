import { z } from 'zod'

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
export const ComboSchema = z.record(
  z.string().regex(/^[a-z][a-z0-9_]*$/, 'dimension ids are snake_case'),
  z.string().min(1),
)
export type Combo = Readonly<Record<string, string>>
