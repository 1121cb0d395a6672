/**
 * @module @kerneltune/core
 * The registry every kerneltune plugin joins, the plugin contracts, the error module with its
 * stable codes, and the zod schemas of the shared domain types.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * const registry = createRegistry()
 * registry.register(myEngine())
 * const engine = registry.get('engine', 'vllm')
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
export { formatIssues, parseWith, validateWith, type Validation } from './validation.ts'
export {
  assertPlugin,
  createRegistry,
  engineControls,
  wrapPlugin,
  type AnyPlugin,
  type PluginByKind,
  type Registry,
} from './registry.ts'
export { checkComboShape, parseCombo } from './checks/combo.ts'
export { DOMAIN_SCHEMAS, domainJsonSchemas, toJsonSchema } from './json-schema.ts'
export * from './contracts/index.ts'
export * from './schemas/index.ts'
export { f16ToF32, f32ToF16, mulberry32 } from './numeric.ts'
export { parseCsv, type CsvOptions, type CsvProblem, type CsvRecord, type CsvResult } from './csv.ts'
export { DEFAULT_TIMEOUTS, isLoopback, sameSecret, serverTimeouts, type Timeouts } from './net.ts'
