/**
 * @module @kerneltune/backends/node
 * The measurement backends that run something real: gpu-kernels (WGSL kernels through WebGPU,
 * in a Deno worker process) and `server` (any engine with a serving capability, launched as its
 * own server and measured under streaming load). They spawn processes, so they are server-side
 * only. Engines' in-process backends live in their own packages' Node entries.
 *
 * @example
 * ```ts
 * import { gpuKernelsBackend } from '@kerneltune/backends/node'
 * const backend = gpuKernelsBackend()
 * console.log(await backend.available())
 * backend.close()
 * ```
 */
export { gpuKernelsBackend, findDeno, type GpuKernelsBackend, type GpuKernelsBackendOptions } from './adapters/gpu-kernels-backend.node.ts'
export { repetitionOf, SERVER_BACKEND, serverBackend, type ServerBackend, type ServerBackendOptions } from './adapters/server-backend.node.ts'
export { SERVER_RUN_BACKEND, serverRunBackend, type ServerRunBackendOptions } from './adapters/server-run-backend.node.ts'
export { keptServers, parallelLaunches, serverSweepSettings, ServingRunSettingsSchema, storedServingSettings, type ServerSweepInput, type ServerSweepSettings, type ServingRunSettings } from './adapters/server-run-settings.node.ts'
