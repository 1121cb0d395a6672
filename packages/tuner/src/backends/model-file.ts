/**
 * Backends that run a model file (llama.cpp loads a GGUF) need the file's path, which differs per
 * run while the registry holds one plugin per name. A model-file backend is that plugin: it is
 * registered once under its name and makes (and keeps) a concrete backend per model path; a run
 * names the file in its request (`modelPath`) and executeRun asks for the backend of that file.
 */
import { KerneltuneError, type MeasurementBackend, type Registry, type Run } from '@kerneltune/core'

export interface ModelFileBackendOptions {
  readonly name: string
  readonly description: string
  readonly simulated: boolean
  /** What the file is, for error messages ("a GGUF file"). */
  readonly fileKind: string
  /**
   * The engine plugin whose runs it measures. Plugin names are unique across kinds, so the backend
   * cannot share the engine's name; a run request may still name the backend by the engine's name.
   */
  readonly engine?: string
  /** The concrete backend of one model file. Called once per path. */
  readonly create: (modelPath: string) => MeasurementBackend
}

export interface ModelFileBackend extends MeasurementBackend {
  readonly modelFile: { readonly fileKind: string; readonly engine?: string; forModel(modelPath: string): MeasurementBackend }
}

export function isModelFileBackend(b: MeasurementBackend): b is ModelFileBackend {
  return typeof (b as Partial<ModelFileBackend>).modelFile?.forModel === 'function'
}

export function modelFileBackend(options: ModelFileBackendOptions): ModelFileBackend {
  const byPath = new Map<string, MeasurementBackend>()
  const forModel = (modelPath: string) => {
    let b = byPath.get(modelPath)
    if (!b) byPath.set(modelPath, (b = options.create(modelPath)))
    return b
  }
  const missing = () => new KerneltuneError('INVALID_INPUT', `backend ${options.name} measures ${options.fileKind}: give the run a modelPath`)
  return {
    name: options.name,
    kind: 'measurement-backend',
    apiVersion: 1,
    description: options.description,
    simulated: options.simulated,
    modelFile: { fileKind: options.fileKind, ...(options.engine ? { engine: options.engine } : {}), forModel },
    // Without a file there is nothing to load; availability is checked per file by forModel(path).available().
    async available() {
      return { ok: true }
    },
    async measure() {
      throw missing()
    },
  }
}

/** The backend plugin a request names: by its own name, or by the engine name of a model-file backend. */
export function findBackend(registry: Registry, name: string): MeasurementBackend | undefined {
  return registry.find('measurement-backend', name) ?? registry.list('measurement-backend').find((b) => isModelFileBackend(b) && b.modelFile.engine === name)
}

/** The model file a run names, if any (stored with its target by createRun). */
export const runModelPath = (run: Pick<Run, 'target'>): string | undefined => (run.target as { modelPath?: string }).modelPath

/** The backend that measures a run: the registered plugin, or its concrete backend for the run's model file. */
export function backendForRun(registry: Registry, run: Pick<Run, 'backend' | 'target'>): MeasurementBackend {
  const plugin = registry.get('measurement-backend', run.backend)
  if (!isModelFileBackend(plugin)) return plugin
  const path = runModelPath(run)
  if (!path) throw new KerneltuneError('INVALID_INPUT', `backend ${run.backend} measures ${plugin.modelFile.fileKind}: the run has no modelPath`)
  return plugin.modelFile.forModel(path)
}
