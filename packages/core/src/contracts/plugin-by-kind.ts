/**
 * Each plugin kind's type, in a module of its own so that the registry and the zod-free checks
 * (checks/plugin.ts, which derives each kind's hook list from these types) both import it without
 * importing each other.
 */
import type { PluginKind } from './plugin.ts'
import type { EnginePlugin } from './engine.ts'
import type { MeasurementBackend } from './measurement.ts'
import type { SearchStrategyPlugin } from './search.ts'
import type { PredictorPlugin } from './predictor.ts'
import type { KernelProviderPlugin } from './kernel-provider.ts'
import type { KernelGeneratorPlugin } from './kernel-generator.ts'

/** Maps each kind to its plugin type, so `get('engine', ...)` is typed. */
export interface PluginByKind {
  engine: EnginePlugin
  'measurement-backend': MeasurementBackend
  'search-strategy': SearchStrategyPlugin
  predictor: PredictorPlugin
  'kernel-provider': KernelProviderPlugin
  'kernel-generator': KernelGeneratorPlugin
}

export type AnyPlugin = PluginByKind[PluginKind]
