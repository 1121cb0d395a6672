/**
 * The composition root of both apps: the one place where every measurement backend is registered,
 * the store is opened and the catalog is built (the engines come from ./engines.ts). Building a
 * backend starts nothing, but it loads its package (node-llama-cpp, the WebGPU worker's launcher),
 * so commands that only translate use `engineRegistry()` instead of `defaultRegistry()`.
 * Uses only node: modules that Bun and Deno also provide.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { analyticalBackend, type AnalyticalBackendOptions } from '@kerneltune/backends'
import { gpuKernelsBackend, serverRunBackend } from '@kerneltune/backends/node'
import { buildCatalog, type Catalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, type AnyPlugin, type EngineLookup, type EnginePlugin, type MeasurementBackend, type Registry } from '@kerneltune/core'
import * as llamacpp from '@kerneltune/engines-llamacpp'
import { llamacppRunBackend, locateLlamaServer } from '@kerneltune/engines-llamacpp/node'
import * as onnx from '@kerneltune/engines-onnx'
import { onnxruntimeRunBackend } from '@kerneltune/engines-onnx/node'
import * as tgi from '@kerneltune/engines-tgi'
import * as triton from '@kerneltune/engines-triton'
import * as trtllm from '@kerneltune/engines-trtllm'
import * as vllm from '@kerneltune/engines-vllm'
import { openStore, isPostgresUrl, type Store } from '@kerneltune/store'
import { buildEngine, ENGINE_NAMES, isEngineName, SERVING_ENGINE_NAMES, type EngineName, type EnginePackages } from './engines.ts'
import { searchStrategies } from '@kerneltune/tuner'

const PACKAGES: EnginePackages = { vllm, tgi, trtllm, triton, onnx, llamacpp }

/**
 * The built-in engine plugins, built at once from engines.ts's table, one per name of
 * ENGINE_NAMES and in its order: the server registers them synchronously at start. Triton finds
 * the engines that provide its backends in `engines` (the registry these join); without one,
 * among the engines of this list.
 */
export function enginePlugins(engines?: EngineLookup): EnginePlugin[] {
  const list: EnginePlugin[] = []
  const lookup: EngineLookup = engines ?? { list: () => list }
  for (const name of ENGINE_NAMES) list.push(builtEngine(name, lookup))
  return list
}

// llama.cpp's serving capability finds llama-server in the build cache too, a lookup that needs node:.
const builtEngine = (name: EngineName, lookup: EngineLookup): EnginePlugin =>
  name === 'llamacpp' ? llamacpp.llamacppServerEngine({ locate: locateLlamaServer }) : buildEngine(name, PACKAGES, lookup)

/** A built-in engine that serves, as the live paths launch it (with its Node-side binary lookup); any other name is INVALID_INPUT. */
export function servingEngine(name: string): EnginePlugin {
  // INVALID_INPUT (the CLI's exit 2): the name came from a flag, and only serving engines qualify.
  if (!isEngineName(name) || !SERVING_ENGINE_NAMES.includes(name)) throw new KerneltuneError('INVALID_INPUT', `no serving engine named "${name}"; engines with a serving capability: ${SERVING_ENGINE_NAMES.join(', ')}`)
  const list: EnginePlugin[] = []
  return builtEngine(name, { list: () => list })
}

export interface BackendOptions {
  readonly analytical?: AnalyticalBackendOptions
}

/**
 * The built-in measurement backends. Creating them starts nothing: a device or binary is opened on
 * first use. The `server` backend launches whichever engine of `engines` a run names (default:
 * the built-in engines), through that engine's serving capability.
 */
export function backendPlugins(options: BackendOptions = {}, engines?: EngineLookup): MeasurementBackend[] {
  let builtIn: EnginePlugin[] | undefined
  const lookup: EngineLookup = engines ?? { list: () => (builtIn ??= enginePlugins()) }
  // The roofline has no server slots or batching policy: runs hold them at their defaults.
  const analytical = { ignores: llamacpp.LLAMACPP_SERVER_DIMENSIONS.map((d) => d.id), ...options.analytical }
  return [analyticalBackend(analytical), gpuKernelsBackend(), llamacppRunBackend(), serverRunBackend({ engines: lookup }), onnxruntimeRunBackend()]
}

/** Engines, measurement backends and search strategies, plus any extra plugins (tests, extensions). */
export function defaultRegistry(options: BackendOptions & { extra?: readonly AnyPlugin[] } = {}): Registry {
  const registry = createRegistry()
  for (const p of [...enginePlugins(registry), ...backendPlugins(options, registry), ...searchStrategies(), ...(options.extra ?? [])]) registry.register(p)
  return registry
}

/** $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db (~/.local/share/…). */
export function defaultDatabaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.KERNELTUNE_DATABASE_URL) return env.KERNELTUNE_DATABASE_URL
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share')
  return join(data, 'kerneltune', 'kerneltune.db')
}

/** Opens a store, creating the folder of a SQLite file first. */
export async function openStoreAt(url: string): Promise<Store> {
  if (!isPostgresUrl(url) && url !== ':memory:' && !/^(libsql|https?|wss?):/.test(url)) mkdirSync(dirname(url.replace(/^file:/, '')), { recursive: true })
  return openStore(url)
}

export interface ComposeOptions {
  /** Where the store lives; default defaultDatabaseUrl(env). Ignored when `store` is given. */
  readonly databaseUrl?: string
  /** An open store to use (the caller closes it). */
  readonly store?: Store
  /** Default defaultRegistry(). */
  readonly registry?: Registry
  readonly env?: Readonly<Record<string, string | undefined>>
}

export interface Composition {
  readonly store: Store
  readonly registry: Registry
  readonly catalog: Catalog
  /** Closes the store when this composition opened it. */
  close(): Promise<void>
}

/** Opens the store and builds the registry and its catalog: what an app needs before serving. */
export async function compose(options: ComposeOptions = {}): Promise<Composition> {
  const env = options.env ?? process.env
  const store = options.store ?? (await openStoreAt(options.databaseUrl ?? defaultDatabaseUrl(env)))
  const registry = options.registry ?? defaultRegistry()
  return { store, registry, catalog: buildCatalog(registry), close: async () => { if (!options.store) await store.close() } }
}
