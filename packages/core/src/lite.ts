/**
 * @module @kerneltune/core/lite
 * What engine plugins and `kerneltune translate` need at run time, without zod: the errors, the
 * registry (which checks plugins by hand), the core dimensions, the engine kit (combination
 * checks, versions, refusals, shell quoting) and the numeric helpers. The main entry re-exports
 * all of it next to the zod schemas; code on the start-up path imports values from here and
 * types from the main entry (`import type`), which costs nothing at run time. apps/cli's translate-no-zod.test.ts fails when
 * zod is loaded again on that path; checks/checks.test.ts holds the hand-written checks to zod's.
 *
 * @example
 * ```ts
 * import { checkCombo, createRegistry } from '@kerneltune/core/lite'
 * import type { Combo, Refusal } from '@kerneltune/core'
 * const refusal: Refusal | undefined = checkCombo('my-engine', 'My engine', '1.0', combo, known)
 * ```
 */
export {
  ERROR_CODES,
  KerneltuneError,
  isKerneltuneError,
  kerneltuneError,
  pluginError,
  type ErrorCode,
  type KerneltuneErrorOptions,
} from './errors.ts'
export {
  assertPlugin,
  createRegistry,
  engineControls,
  wrapPlugin,
  type AnyPlugin,
  type PluginByKind,
  type Registry,
} from './registry.ts'
export { CONTRACT_VERSIONS, PLUGIN_KINDS, type PluginKind } from './contracts/plugin.ts'
export {
  CORE_DIMENSION_IDS,
  CORE_DIMENSION_NEUTRAL,
  CORE_DIMENSION_VALUES,
  type Combo,
  type CoreDimensionId,
} from './dimensions.ts'
export { checkComboShape, parseCombo } from './checks/combo.ts'
export {
  applyControls,
  checkCombo,
  formatCommandLine,
  refusal,
  resolveVersion,
  shellQuote,
  stamped,
  translationJson,
  translationScript,
  type ControlledCombo,
  type FormatCommandLineOptions,
} from './contracts/engine-kit.ts'
export {
  classifyServerLog,
  requireServing,
  SERVING_COUNTERS,
  SERVING_LOG_CLASSES,
  servingCommand,
  type ServingBinary,
  type ServingCapability,
  type ServingCommand,
  type ServingCounter,
  type ServingIdentity,
  type ServingLogClass,
  type ServingLogPatterns,
  type ServingMetricNames,
  type ServingReadiness,
  type ServingVersionProbe,
} from './contracts/serving.ts'
export { f16ToF32, f32ToF16, mulberry32 } from './numeric.ts'
