import { z } from 'zod'
import { DIMENSION_ID, DIMENSION_ID_MESSAGE } from '../checks/combo.ts'

// The constants and the Combo type live in a zod-free module (engines read them at run time);
// they are re-exported here so the index keeps offering them next to the schema.
export { CORE_DIMENSION_IDS, CORE_DIMENSION_NEUTRAL, CORE_DIMENSION_VALUES, type Combo, type CoreDimensionId } from '../dimensions.ts'

/**
 * A combination as a boundary schema (run requests, stored runs): the same rule `parseCombo`
 * checks by hand on the translate path. A missing key means the engine's default.
 */
export const ComboSchema: z.ZodRecord<z.ZodString, z.ZodString> = z.record(
  z.string().regex(DIMENSION_ID, DIMENSION_ID_MESSAGE),
  z.string().min(1),
)
