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
// Everything of the zod-free entry (errors, registry, dimensions, engine kit, numeric helpers), listed once there.
export * from './lite.ts'
export { formatIssues, parseWith, validateWith, type Validation } from './validation.ts'
export { DOMAIN_SCHEMAS, domainJsonSchemas, toJsonSchema } from './json-schema.ts'
export * from './contracts/index.ts'
export * from './schemas/index.ts'
export { parseCsv, type CsvOptions, type CsvProblem, type CsvRecord, type CsvResult } from './csv.ts'
export { DEFAULT_TIMEOUTS, isLoopback, sameSecret, serverTimeouts, type Timeouts } from './net.ts'
