/**
 * Which backend measures a run. A request names a backend plugin, or the engine of a model-file
 * backend; a run of a model-file backend is measured by its concrete backend for the run's file.
 */
import { KerneltuneError, isModelFileBackend, type MeasurementBackend, type Registry, type Run, type RunTarget } from '@kerneltune/core'

/** The backend plugin a request names: by its own name, or by the engine name of a model-file backend. */
export function findBackend(registry: Registry, name: string): MeasurementBackend | undefined {
  return registry.find('measurement-backend', name) ?? registry.list('measurement-backend').find((b) => isModelFileBackend(b) && b.modelFile.engine === name)
}

/** The model file a run names, if any (stored with its target by createRun). */
export const runModelPath = (run: { readonly target: Pick<RunTarget, 'modelPath'> }): string | undefined => run.target.modelPath

/** The backend that measures a run: the registered plugin, or its concrete backend for the run's model file. */
export function backendForRun(registry: Registry, run: Pick<Run, 'backend'> & { readonly target: Pick<RunTarget, 'modelPath'> }): MeasurementBackend {
  const plugin = registry.get('measurement-backend', run.backend)
  if (!isModelFileBackend(plugin)) return plugin
  const path = runModelPath(run)
  if (!path) throw new KerneltuneError('INVALID_INPUT', `backend ${run.backend} measures ${plugin.modelFile.fileKind}: the run has no modelPath`)
  return plugin.modelFile.forModel(path)
}
