/**
 * @module @kerneltune/serving/node
 * Node adapters: launch a server (own process group, free loopback port, readiness, captured
 * output, no orphans even when kerneltune is SIGKILLed), find an engine's server binary from its
 * serving capability, run a measured serving session, and the capacity of a running server.
 *
 * @example
 * ```ts
 * import { launchServer, requireServerBinary } from '@kerneltune/serving/node'
 * const s = await launchServer({ argv: [requireServerBinary(engine.name, engine.serving!).path, '--port', '{port}'] })
 * console.log(s.baseUrl)
 * await s.stop()
 * ```
 */
export { errorLines, freePort, launchServer, processAlive, type LaunchedServer, type LaunchPhases, type LaunchSpec } from './adapters/launcher.node.ts'
export { findServerBinary, requireServerBinary, type FoundServerBinary } from './adapters/server-binary.node.ts'
export { cpuDevice, deviceFromNvidiaSmi, loadServer, machineDevice, openServer, runServingSession, warmServer, type LevelResult, type LoadLevel, type LoadServerOptions, type OpenOptions, type OpenServer, type ServerInfo, type ServerTarget, type SessionOptions, type SessionResult } from './adapters/serving-session.node.ts'
export { createServerPool, type LaunchReason, type PoolLaunch, type PoolStats, type Prelaunched, type PrelaunchOptions, type ServerPool, type ServerPoolOptions } from './adapters/server-pool.node.ts'
export { serverCapacity, type CapacityFigures, type ServerCapacityOptions } from './adapters/capacity.node.ts'
export { INSTANT_SERVER_METRICS, INSTANT_SERVER_SERVING, startInstantServer, type InstantServer, type InstantServerOptions } from './adapters/instant-server.node.ts'
