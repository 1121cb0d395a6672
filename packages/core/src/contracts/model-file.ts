/**
 * Backends that run a model file (llama.cpp loads a GGUF) need the file's path, which differs per
 * run while the registry holds one plugin per name. A model-file backend is that plugin: it is
 * registered once under its name and makes (and keeps) a concrete backend per model path; a run
 * names the file in its request (`modelPath`) and the tuner asks for the backend of that file
 * (`backendForRun` in @kerneltune/tuner). It is part of the backend contract, so that backends
 * (@kerneltune/backends) and the tuner share it without depending on each other.
 */
import { KerneltuneError } from '../errors.ts'
import type { MeasurementBackend } from './measurement.ts'

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
  /** Dimensions no model's backend can exercise (MeasurementBackend.ignores): runs hold them at their default. */
  readonly ignores?: readonly string[]
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
    ...(options.ignores ? { ignores: options.ignores } : {}),
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
