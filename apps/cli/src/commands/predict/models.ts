/**
 * The throughput model the predict/recommend/calibrate commands use (@kerneltune/regressor's
 * predictorFor: the pretrained one, trueno's heuristic, or a saved file), read from --model-file.
 */
import { learnedFromFile, predictorFor, pretrainedModel, type LearnedModel, type Predictor } from '@kerneltune/regressor'
import type { Io } from '../../cli/command.ts'
import { readJsonFile } from '../shared/target-flags.ts'

export { readJsonFile }

/** Loads a learned model (or the base of a calibrated file) from --model-file. */
export async function loadLearned(io: Io, file: string | undefined): Promise<LearnedModel> {
  return file === undefined ? pretrainedModel() : learnedFromFile(await readJsonFile(io, file, 'model-file'))
}

export async function loadPredictor(io: Io, file: string | undefined, heuristic = false): Promise<Predictor> {
  const json = file !== undefined && !heuristic ? await readJsonFile(io, file, 'model-file') : undefined
  return predictorFor({ heuristic, ...(file !== undefined ? { file } : {}), json })
}
