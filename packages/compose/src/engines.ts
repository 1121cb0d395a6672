/**
 * The built-in engines by name, each made from its package: loaded on demand by `loadEngine` (a
 * command that translates for one engine, or prints help, loads no engine package it does not
 * use), or from packages already imported by `buildEngine`, which `enginePlugins()` in the Node
 * entry uses for the server. This table is the one list of engines; ENGINE_NAMES, the CLI's help
 * and the run requests' engine names come from it.
 */
import { createRegistry, KerneltuneError } from '@kerneltune/core/lite'
import type { AnyPlugin, EngineLookup, EnginePlugin, Registry } from '@kerneltune/core'

/** The engine packages, by the key the table below names them with (types only: nothing is loaded here). */
export interface EnginePackages {
  readonly vllm: typeof import('@kerneltune/engines-vllm')
  readonly tgi: typeof import('@kerneltune/engines-tgi')
  readonly trtllm: typeof import('@kerneltune/engines-trtllm')
  readonly triton: typeof import('@kerneltune/engines-triton')
  readonly onnx: typeof import('@kerneltune/engines-onnx')
  readonly llamacpp: typeof import('@kerneltune/engines-llamacpp')
}

const PACKAGE_LOADERS: { readonly [K in keyof EnginePackages]: () => Promise<EnginePackages[K]> } = {
  vllm: () => import('@kerneltune/engines-vllm'),
  tgi: () => import('@kerneltune/engines-tgi'),
  trtllm: () => import('@kerneltune/engines-trtllm'),
  triton: () => import('@kerneltune/engines-triton'),
  onnx: () => import('@kerneltune/engines-onnx'),
  llamacpp: () => import('@kerneltune/engines-llamacpp'),
}

/** One engine: made from its package, on demand or from the packages at hand. */
interface EngineEntry {
  /** The plugin has a serving capability (a live server backend and a gateway arm); a test holds this to the plugins. */
  readonly serves: boolean
  /** The kind of model file its server loads (`gguf`), when it serves a local file rather than a model id. */
  readonly modelFile?: string
  load(engines: EngineLookup): Promise<EnginePlugin>
  build(packages: EnginePackages, engines: EngineLookup): EnginePlugin
}

// `engines` is the registry the engine joins: an engine that works with others (Triton) looks them up there.
function engine<K extends keyof EnginePackages>(pkg: K, make: (m: EnginePackages[K], engines: EngineLookup) => EnginePlugin, serves = false, modelFile?: string): EngineEntry {
  return { serves, ...(modelFile ? { modelFile } : {}), load: async (engines) => make(await PACKAGE_LOADERS[pkg](), engines), build: (packages, engines) => make(packages[pkg], engines) }
}

/** The built-in engines' registry names; ENGINES below must hold exactly these (the type checker sees to it). */
export type EngineName = 'vllm' | 'tgi' | 'trtllm' | 'trtllm-serve' | 'triton' | 'onnx' | 'onnx-cpu' | 'llamacpp'

// Explicitly typed for JSR (no slow types); the key order is the order help texts list them in.
const ENGINES: { readonly [K in EngineName]: EngineEntry } = {
  vllm: engine('vllm', (m) => m.vllmEngine(), true),
  tgi: engine('tgi', (m) => m.tgiEngine(), true),
  trtllm: engine('trtllm', (m) => m.trtllmEngine()),
  'trtllm-serve': engine('trtllm', (m) => m.trtllmServeEngine(), true),
  triton: engine('triton', (m, engines) => m.tritonEngine({ engines })),
  onnx: engine('onnx', (m) => m.onnxEngine()),
  // ONNX Runtime's CPU execution provider, which the onnxruntime backend measures (its own releases and dimensions).
  'onnx-cpu': engine('onnx', (m) => onnxCpuPlugin(m)),
  // With llama-server's slots and continuous batching: runs on the server backend search them.
  llamacpp: engine('llamacpp', (m) => m.llamacppServerEngine(), true, 'gguf'),
}

/**
 * onnxEngine({ provider: 'cpu' }) under a registry name of its own: the CUDA/TensorRT plugin keeps
 * 'onnx', so a run names 'onnx-cpu' to search the CPU EP's dimensions, which are contributed for
 * that name (the catalog offers a dimension to the engines it lists).
 */
export function onnxCpuPlugin(m: Pick<typeof import('@kerneltune/engines-onnx'), 'onnxEngine'>): EnginePlugin {
  const p = m.onnxEngine({ provider: 'cpu' })
  const ext = p.catalogExtension!
  return {
    ...p, name: 'onnx-cpu', displayName: 'ONNX Runtime (CPU)',
    // Of the core dimensions only graph optimisation (fusion_strategy) is the CPU EP's: the others' defaults name GPU kernels.
    catalogExtension: { ...ext, dimensions: ext.dimensions.map((d) => ({ ...d, engines: ['onnx-cpu'] })), coreDimensions: ['fusion_strategy'] },
  }
}

/** The registry names of the built-in engines, in the order help texts list them. */
export const ENGINE_NAMES = Object.keys(ENGINES) as readonly EngineName[]

/** The built-in engines with a serving capability: what `--backend server` and the gateway's arms can launch. */
export const SERVING_ENGINE_NAMES: readonly EngineName[] = ENGINE_NAMES.filter((n) => ENGINES[n].serves)

/** The engine a live command serves when none is named: the one whose server runs on a laptop's CPU from a local file. */
export const DEFAULT_SERVING_ENGINE: EngineName = 'llamacpp'

/** The kind of model file an engine's server loads (`gguf`), or undefined for an engine that takes a model id or path as it is. */
export const servingModelFile = (name: string): string | undefined => (isEngineName(name) ? ENGINES[name].modelFile : undefined)

export const isEngineName = (name: string): name is EngineName => Object.hasOwn(ENGINES, name)

/** One built-in engine plugin, loading only its package; it looks others up in `engines`. */
export async function loadEngine(name: string, engines: Registry = createRegistry()): Promise<EnginePlugin> {
  if (!isEngineName(name)) throw new KerneltuneError('PLUGIN_NOT_FOUND', `no engine named "${name}"; built in: ${ENGINE_NAMES.join(', ')}`)
  return ENGINES[name].load(engines)
}

/** One built-in engine plugin from packages already imported (the server's eager registry). */
export function buildEngine(name: EngineName, packages: EnginePackages, engines: EngineLookup): EnginePlugin {
  return ENGINES[name].build(packages, engines)
}

/**
 * The engines one built-in engine works with through the registry: Triton serves vLLM's and
 * TensorRT-LLM's model repositories, so a registry holding Triton holds those too.
 */
const WORKS_WITH: Partial<Record<EngineName, readonly EngineName[]>> = { triton: ['vllm', 'trtllm', 'trtllm-serve'] }

/**
 * A registry of built-in engines only, no measurement backend and no search strategy: what
 * translating and the catalog need. `names` (default: all) picks the engines to load, with the
 * engines they work with; `kerneltune translate` loads the one it translates for.
 */
export async function engineRegistry(names: readonly string[] = ENGINE_NAMES, extra: readonly AnyPlugin[] = []): Promise<Registry> {
  const wanted = new Set<string>()
  for (const name of names) for (const n of [name, ...(isEngineName(name) ? (WORKS_WITH[name] ?? []) : [])]) wanted.add(n)
  const order = [...ENGINE_NAMES.filter((n) => wanted.has(n)), ...[...wanted].filter((n) => !isEngineName(n))]
  const registry = createRegistry()
  for (const engine of await Promise.all(order.map((n) => loadEngine(n, registry)))) registry.register(engine)
  for (const p of extra) registry.register(p)
  return registry
}
