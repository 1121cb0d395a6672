/**
 * @module @kerneltune/engine-conformance
 * The conformance suite every kerneltune engine plugin runs: plugin shape, registration,
 * versions, a well-formed translation or refusal for every combination of the catalog,
 * determinism, defaults, refusals of unknown dimensions and values, given an inventory that
 * every emitted flag, variable and value exists for that engine version, and, for an engine with
 * a serving capability, its evidence, metric map and launch command.
 *
 * @example
 * ```ts
 * // my-engine.test.ts
 * import { testEngine } from '@kerneltune/engine-conformance'
 * import { myEngine } from './index.ts'
 * testEngine({ engine: () => myEngine() })
 * ```
 */
export { testEngine, type TestEngineOptions } from './test-engine.ts'
export { coreCombos, productOf } from './combos.ts'
export { baselineOf, CAPABLE_DEVICE, engineCatalog, quickRunCount, type QuickRunCount } from './catalog-checks.ts'
export { resultProblems } from './shape.ts'
export { SERVING_EVIDENCE_FACTS, servingCommandProblems, servingEvidenceProblems, servingProblems } from './serving.ts'
export {
  argvProblems,
  configKeyProblems,
  inventoryFromJson,
  inventoryProblems,
  type EngineInventory,
  type InventoryEntry,
  type ValueType,
} from './inventory.ts'
