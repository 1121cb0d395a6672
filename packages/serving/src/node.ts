/**
 * @module @kerneltune/serving/node
 * Node adapters: launch a server (own process group, free loopback port, readiness, captured
 * output, no orphans even when kerneltune is SIGKILLed), find the llama-server binary, run a
 * measured serving session, the capacity of a running server, and the `server` measurement backend.
 *
 * @example
 * ```ts
 * import { launchServer, requireLlamaServer } from '@kerneltune/serving/node'
 * const s = await launchServer({ argv: [requireLlamaServer().path, '-m', 'm.gguf', '--port', '{port}', '--metrics'] })
 * console.log(s.baseUrl)
 * await s.stop()
 * ```
 */
export { errorLines, freePort, launchServer, MODEL_LOADED_LINE, processAlive, type LaunchedServer, type LaunchPhases, type LaunchSpec } from './adapters/launcher.node.ts'
export { BUILD_HINT, findLlamaServer, LLAMA_SERVER_ENV, llamaServerCacheRoot, requireLlamaServer, type FoundBinary } from './adapters/llama-server-binary.node.ts'
export { cpuDevice, deviceFromNvidiaSmi, loadServer, machineDevice, openServer, runServingSession, warmServer, type LevelResult, type LoadLevel, type LoadServerOptions, type OpenOptions, type OpenServer, type ServerInfo, type ServerTarget, type SessionOptions, type SessionResult } from './adapters/serving-session.node.ts'
export { createServerPool, type LaunchReason, type PoolLaunch, type PoolStats, type Prelaunched, type PrelaunchOptions, type ServerPool, type ServerPoolOptions } from './adapters/server-pool.node.ts'
export { serverCapacity, type CapacityFigures, type ServerCapacityOptions } from './adapters/capacity.node.ts'
export { startInstantServer, type InstantServer, type InstantServerOptions } from './adapters/instant-server.node.ts'
