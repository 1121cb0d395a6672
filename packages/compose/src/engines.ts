/**
 * The built-in engines by name, each behind a dynamic import: a command that translates for one
 * engine, or prints help, loads no engine package it does not use. This table is the one list of
 * engines; `enginePlugins()` in the Node entry builds the same set eagerly for the server.
 */
import { createRegistry, KerneltuneError } from '@kerneltune/core/lite'
import type { AnyPlugin, EnginePlugin, Registry } from '@kerneltune/core'

// Each loader gets the registry the engine joins: an engine that works with others (Triton) looks
// them up there.
const ENGINES = {
  vllm: async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-vllm')).vllmEngine(),
  tgi: async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-tgi')).tgiEngine(),
  trtllm: async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-trtllm')).trtllmEngine(),
  'trtllm-serve': async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-trtllm')).trtllmServeEngine(),
  triton: async (engines: Registry): Promise<EnginePlugin> => (await import('@kerneltune/engines-triton')).tritonEngine({ engines }),
  onnx: async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-onnx')).onnxEngine(),
  // ONNX Runtime's CPU execution provider, which the onnxruntime backend measures (its own releases and dimensions).
  'onnx-cpu': async (): Promise<EnginePlugin> => onnxCpuPlugin(await import('@kerneltune/engines-onnx')),
  // With llama-server's slots and continuous batching: runs on the server backend search them.
  llamacpp: async (): Promise<EnginePlugin> => (await import('@kerneltune/engines-llamacpp')).llamacppServerEngine(),
} satisfies Record<string, (engines: Registry) => Promise<EnginePlugin>>

export type EngineName = keyof typeof ENGINES

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

export const isEngineName = (name: string): name is EngineName => Object.hasOwn(ENGINES, name)

/** One built-in engine plugin, loading only its package; it looks others up in `engines`. */
export async function loadEngine(name: string, engines: Registry = createRegistry()): Promise<EnginePlugin> {
  if (!isEngineName(name)) throw new KerneltuneError('PLUGIN_NOT_FOUND', `no engine named "${name}"; built in: ${ENGINE_NAMES.join(', ')}`)
  return ENGINES[name](engines)
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
