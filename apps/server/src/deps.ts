/** What the routes need: the store, the plugins, the catalog, the queue, events and metrics. */
import type { Catalog } from '@kerneltune/catalog'
import type { HardwareSpec, Registry } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import type { EventBus } from './bus.ts'
import type { ServerMetrics } from './metrics.ts'
import type { OpsMetrics } from './ops-metrics.ts'
import type { ModelPaths } from './model-paths.ts'
import type { OnnxModels } from './onnx-models.ts'
import type { JobQueue } from './queue.ts'

export interface AppDeps {
  store: Store
  registry: Registry
  catalog: Catalog
  queue: JobQueue
  bus: EventBus
  metrics: ServerMetrics
  /** Operations metrics (HTTP requests, browser-reported timings). */
  ops: OpsMetrics
  /** The model files a network request may name (none unless the operator allows directories). */
  modelPaths: ModelPaths
  /** The ONNX decoders a run over ONNX Runtime may name by shape (synthesized on the server). */
  onnxModels: OnnxModels
  /** This server's machine as a hardware spec (detected), offered beside the presets; absent where nothing is detected. */
  localHardware?: () => Promise<HardwareSpec | undefined>
}
