/**
 * Which backend measures a run. A request names a backend plugin, or the engine of a model-file
 * backend; a run of a model-file backend is measured by its concrete backend for the run's file,
 * told the run's engine, workload and stored options (a serving load's request count, the servers
 * it keeps across rounds), so every executor of one stored run measures it with the same backend.
 */
import { KerneltuneError, isModelFileBackend, type MeasurementBackend, type ModelFileRunOptions, type Registry, type Run, type RunTarget } from '@kerneltune/core'

/** The backend plugin a request names: by its own name, or by the engine name of a model-file backend. */
export function findBackend(registry: Registry, name: string): MeasurementBackend | undefined {
  return registry.find('measurement-backend', name) ?? registry.list('measurement-backend').find((b) => isModelFileBackend(b) && b.modelFile.engine === name)
}

/** The model file a run names, if any (stored with its target by createRun). */
export const runModelPath = (run: { readonly target: Pick<RunTarget, 'modelPath'> }): string | undefined => run.target.modelPath

type RunLike = Pick<Run, 'backend'> & { readonly target: Pick<RunTarget, 'modelPath'> & Partial<Pick<RunTarget, 'engine' | 'hardware' | 'workload' | 'options'>>; readonly progress?: Run['progress'] }

/** What a stored run tells its model-file backend (its target), or undefined for a bare file (a device probe). */
export function modelFileRunOptions(run: RunLike): ModelFileRunOptions | undefined {
  const t = run.target
  if (t.engine === undefined) return undefined
  return {
    engine: t.engine, ...(t.hardware ? { hardware: t.hardware } : {}), ...(t.workload ? { workload: t.workload } : {}),
    ...(t.options ? { options: t.options } : {}), ...(run.progress ? { combos: run.progress.total } : {}),
  }
}

/**
 * The backend that measures a run: the registered plugin, or its concrete backend for the run's
 * model file. One made for the run (a model-file backend with forRun) is the caller's to close.
 */
export function backendForRun(registry: Registry, run: RunLike): MeasurementBackend {
  const plugin = registry.get('measurement-backend', run.backend)
  if (!isModelFileBackend(plugin)) return plugin
  const path = runModelPath(run)
  if (!path) throw new KerneltuneError('INVALID_INPUT', `backend ${run.backend} measures ${plugin.modelFile.fileKind}: the run has no modelPath`)
  return plugin.modelFile.forModel(path, modelFileRunOptions(run))
}

/**
 * Whether backendForRun makes the run a backend of its own (a model-file backend with forRun, told
 * the run's options): its executor closes it when the run ends. A registered plugin, or a model
 * file's backend shared by every run of that file, is not the run's to close.
 */
export function ownsBackend(registry: Registry, run: RunLike): boolean {
  const plugin = registry.get('measurement-backend', run.backend)
  return isModelFileBackend(plugin) && plugin.modelFile.perRun === true && modelFileRunOptions(run) !== undefined
}

/**
 * Lends `f` the backend that measures a run and closes it afterwards when it was made for the run
 * (a kept server pool stays up until its backend is closed): for the callers that measure part of a
 * run (a worker's combination, a Tier 2 trial) rather than execute it.
 */
export async function withRunBackend<T>(registry: Registry, run: RunLike, f: (backend: MeasurementBackend) => Promise<T>): Promise<T> {
  const backend = backendForRun(registry, run)
  try {
    return await f(backend)
  } finally {
    if (ownsBackend(registry, run)) await backend.close?.()
  }
}
