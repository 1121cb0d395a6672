/**
 * Backends that run a model file (llama.cpp loads a GGUF) need the file's path, which differs per
 * run while the registry holds one plugin per name. A model-file backend is that plugin: it is
 * registered once under its name and makes (and keeps) a concrete backend per model path; a run
 * names the file in its request (`modelPath`) and the tuner asks for the backend of that file
 * (`backendForRun` in @kerneltune/tuner). It is part of the backend contract, so that backends
 * (@kerneltune/backends) and the tuner share it without depending on each other.
 *
 * A run may also tell the backend how to measure it (`forModel(path, options)`: its engine,
 * workload and stored options, such as the requests per repetition of a serving load or how many
 * servers to keep across rounds). Those options are read from the stored run, so every process
 * that executes the run (the sweep, the server's queue, a worker) makes the same backend.
 */
import { KerneltuneError } from '../errors.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'
import type { Workload } from '../schemas/workload.ts'
import type { MeasurementBackend } from './measurement.ts'

/** What a run tells a model-file backend besides its file: read from the stored run (its target). */
export interface ModelFileRunOptions {
  readonly engine?: string
  readonly hardware?: HardwareSpec
  readonly workload?: Workload
  /** The run's stored options (RunTarget.options): its design, design settings and backend settings. */
  readonly options?: Readonly<Record<string, unknown>>
  /** How many combinations the run measures, the baseline included. */
  readonly combos?: number
}

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
  /**
   * The concrete backend of one run on one model file, for a backend that measures runs
   * differently by what they stored (a serving load's request count, servers kept across rounds).
   * Called once per forModel(path, options) and never cached: it belongs to that run, whose
   * executor closes it (MeasurementBackend.close). Absent: runs share create(path)'s backend.
   */
  readonly forRun?: (modelPath: string, options: ModelFileRunOptions) => MeasurementBackend
}

export interface ModelFileBackend extends MeasurementBackend {
  readonly modelFile: {
    readonly fileKind: string
    readonly engine?: string
    /** True when forModel(path, options) makes a backend of the run's own (forRun), which the run's executor closes. */
    readonly perRun?: boolean
    forModel(modelPath: string, options?: ModelFileRunOptions): MeasurementBackend
  }
}

export function isModelFileBackend(b: MeasurementBackend): b is ModelFileBackend {
  return typeof (b as Partial<ModelFileBackend>).modelFile?.forModel === 'function'
}

export function modelFileBackend(options: ModelFileBackendOptions): ModelFileBackend {
  const byPath = new Map<string, MeasurementBackend>()
  const forModel = (modelPath: string, run?: ModelFileRunOptions) => {
    if (run && options.forRun) return options.forRun(modelPath, run)
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
    modelFile: { fileKind: options.fileKind, ...(options.engine ? { engine: options.engine } : {}), ...(options.forRun ? { perRun: true } : {}), forModel },
    // Without a file there is nothing to load; availability is checked per file by forModel(path).available().
    async available() {
      return { ok: true }
    },
    async measure() {
      throw missing()
    },
  }
}
