/**
 * One combination measured in this process (`kerneltune measure`): the engine's translation of
 * it (a refused combination is an input error, naming the dimension and why), then
 * node-llama-cpp's backend runs the warm-ups and repetitions on the GGUF.
 */
import { KerneltuneError, type EnginePlugin, type MeasurementResult, type Translation } from '@kerneltune/core'
import { llamacppBackend, type LlamacppBackendOptions } from './node-llama-cpp.node.ts'

export interface MeasureOnceOptions extends Omit<LlamacppBackendOptions, 'llama'> {
  readonly combo: Record<string, string>
  readonly warmups: number
  readonly repetitions: number
  readonly onProgress?: (done: number, total: number) => void
}

/** `engine` is the llama.cpp engine as the apps register it, not a second instance. */
export async function measureOnce(engine: EnginePlugin, o: MeasureOnceOptions): Promise<{ translation: Translation; result: MeasurementResult }> {
  const translation = await engine.translate(o.combo, { model: o.modelPath })
  if (!translation.ok) {
    throw new KerneltuneError('INVALID_INPUT', `llama.cpp cannot run ${translation.dimension}=${translation.value}: ${translation.reason}`)
  }
  const { combo, warmups, repetitions, onProgress, ...backend } = o
  const result = await llamacppBackend(backend).measure({ combo, warmups, repetitions, ...(onProgress ? { onProgress } : {}) })
  return { translation, result }
}
