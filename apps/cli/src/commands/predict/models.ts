/**
 * Loading the throughput model the predict/recommend/calibrate commands use: the pretrained one
 * by default, trueno's heuristic on request, or a saved file (a trained model from
 * `kerneltune train`, or a calibrated one from `kerneltune calibrate`), checked by its schema.
 */
import { z } from 'zod'
import { parseWith } from '@kerneltune/core'
import { CalibratedModel, CorrectionsSchema, LearnedModel, heuristicModel, featuresFromQuery, pretrainedModel, type IntervalPrediction, type ThroughputQuery } from '@kerneltune/regressor'
import { usageError } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { readJsonFile } from '../shared/target-flags.ts'

export interface Predictor {
  name: string
  /**
   * Which model version predicted, for results files (issue 34: a file of predictions must say
   * which regressor made them): the training script's version and seed from the model's metadata,
   * else where the model came from.
   */
  modelVersion: string
  /** A prediction, with its 90% interval when the model carries one (the pretrained model does). */
  predict(q: ThroughputQuery): IntervalPrediction
  /**
   * What the model's training measured on rows it had to extrapolate to (held-out rows whose backend
   * and build no other chip shared), when its metadata records it: said next to a prediction that
   * reports `extrapolation`.
   */
  extrapolationNote?: string
}

const RowSetSchema = z.object({ mape: z.number(), coverage: z.number(), medianWidth: z.number(), rows: z.number() })
const ExtrapolatingSchema = z.object({ chips: z.array(z.string()), decode: RowSetSchema, prefill: RowSetSchema })

/** `<name> v<scriptVersion> (<script>, seed <seed>)` from a model's metadata, or `fallback` without a version. */
export function versionOf(m: LearnedModel, fallback: string): string {
  const meta = (m.json.meta ?? {}) as { scriptVersion?: unknown; script?: unknown; seed?: unknown }
  if (typeof meta.scriptVersion !== 'string') return fallback
  return `${m.name} v${meta.scriptVersion} (${typeof meta.script === 'string' ? meta.script : 'unknown script'}${typeof meta.seed === 'number' ? `, seed ${meta.seed}` : ''})`
}

/** The note from a model's `meta.extrapolating` (training script 3.0.0 on), or undefined without one. */
export function extrapolationNote(m: LearnedModel): string | undefined {
  const r = ExtrapolatingSchema.safeParse((m.json.meta as { extrapolating?: unknown } | undefined)?.extrapolating)
  if (!r.success) return undefined
  const { chips, decode, prefill } = r.data
  const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(0)}%`)
  return `no training row has these, so the model falls back on what the other rows say; in the nested leave-one-chip-out evaluation, held-out rows that extrapolated like this (chips ${chips.join(', ')}) were ${pct(decode.mape)} (decode) and ${pct(prefill.mape)} (prefill) off on average, and the 90% interval, wider for such queries, covered ${pct(decode.coverage)} and ${pct(prefill.coverage)} of them`
}

export const CalibratedFileSchema = z.object({ format: z.literal('kerneltune.calibrated-model'), version: z.literal(1), base: z.unknown(), corrections: CorrectionsSchema, calibration: z.unknown().optional() })

export { readJsonFile }

/** Loads a learned model (or the base of a calibrated file) from --model-file. */
export async function loadLearned(io: Io, file: string | undefined): Promise<LearnedModel> {
  if (file === undefined) return pretrainedModel()
  const json = await readJsonFile(io, file, 'model-file')
  if ((json as { format?: string })?.format === 'kerneltune.calibrated-model') return LearnedModel.fromJSON(parseWith(CalibratedFileSchema, json, 'calibrated model').base)
  return LearnedModel.fromJSON(json)
}

export async function loadPredictor(io: Io, file: string | undefined, heuristic = false): Promise<Predictor> {
  if (heuristic) {
    if (file !== undefined) throw usageError('give --heuristic or --model-file, not both')
    const h = heuristicModel()
    return { name: 'heuristic (trueno default)', modelVersion: 'heuristic (trueno default weights)', predict: (q) => h.predict(featuresFromQuery(q)) }
  }
  if (file === undefined) {
    const m = pretrainedModel()
    const note = extrapolationNote(m)
    return { name: `pretrained (${m.name})`, modelVersion: versionOf(m, m.name), predict: (q) => m.predict(q), ...(note ? { extrapolationNote: note } : {}) }
  }
  const json = await readJsonFile(io, file, 'model-file')
  if ((json as { format?: string })?.format === 'kerneltune.calibrated-model') {
    const c = parseWith(CalibratedFileSchema, json, 'calibrated model')
    const m = new CalibratedModel(LearnedModel.fromJSON(c.base), c.corrections)
    return { name: `calibrated (${file})`, modelVersion: `calibrated (${file}) on ${versionOf(LearnedModel.fromJSON(c.base), 'a saved model')}`, predict: (q) => m.predict(q) }
  }
  const m = LearnedModel.fromJSON(json)
  const note = extrapolationNote(m)
  return { name: `${m.name} (${file})`, modelVersion: versionOf(m, `${m.name} (${file})`), predict: (q) => m.predict(q), ...(note ? { extrapolationNote: note } : {}) }
}

export { kernelFiguresQuery, queryFromRow } from '@kerneltune/regressor'
