/**
 * Fitting and calibrating on a user's own measurement rows (parseRows' MeasuredRow): the work
 * behind `kerneltune train` (a model with its k-fold CV MAPE, stored as the model's MAPE, per
 * hardware CV MAPE and permutation importance) and `kerneltune calibrate` (per-hardware
 * corrections of a base model, with those of an earlier calibrated file kept for hardware not
 * measured again). The CLI reads the files and prints; the numbers come from here.
 */
import { z } from 'zod'
import { parseWith } from '@kerneltune/core'
import { CalibratedModel, CorrectionsSchema, calibrate, hardwareKey, type CalibrationResult } from './calibrate.ts'
import { crossValidate, permutationImportance, type CvResult } from './evaluate.ts'
import { LearnedModel, mapeOf, type TrainOptions } from './learned.ts'
import type { MeasuredRow } from './measurement-rows.ts'

/** The fewest rows k-fold training takes: 10, and 2 × k. */
export const minTrainingRows = (k: number): number => Math.max(10, 2 * k)

export interface HardwareCv {
  hardware: string
  rows: number
  cvMape: number
}

export interface RowsFit {
  /** Fitted on every row, carrying the CV MAPE (its confidence), importance and where it came from. */
  model: LearnedModel
  cv: CvResult
  byHardware: HardwareCv[]
  /** Every feature's MAPE increase when shuffled, largest first. */
  importance: [string, number][]
}

export interface FitRowsOptions {
  k: number
  seed: number
  /** Stored in the model's meta: the file the rows came from and the lines left out. */
  trainedOn: string
  skippedLines: readonly number[]
  /** Progress: folds 1..k, then k + 1 for the final fit. */
  onStep?: (done: number, note: string) => void
}

/** Trains on the rows with k-fold CV (crossValidate's folds) and permutation importance. */
export function fitRows(rows: readonly MeasuredRow[], opts: TrainOptions, o: FitRowsOptions): RowsFit {
  const samples = rows.map((r) => ({ query: r.query, measuredTps: r.measuredTps, group: hardwareKey(r.query), id: `line ${r.line}` }))
  const cv = crossValidate(samples, { ...opts, k: o.k, seed: o.seed, onFold: (d) => o.onStep?.(d, `fold ${d}/${o.k}`) })
  const fitted = LearnedModel.train(samples, opts)
  o.onStep?.(o.k + 1, 'final model')
  const importance = permutationImportance(fitted, samples, { seed: o.seed }).sort((a, b) => b[1] - a[1])
  const model = fitted.with({
    mape: cv.mape, importance,
    meta: { ...fitted.json.meta, cvMape: cv.mape, cvFolds: o.k, seed: o.seed, trainedOn: o.trainedOn, rows: rows.map((r) => r.line), skippedLines: [...o.skippedLines] },
  })
  return { model, cv, byHardware: perHardware(rows, cv.predictions), importance }
}

function groupByHardware(rows: readonly MeasuredRow[]): Map<string, MeasuredRow[]> {
  const groups = new Map<string, MeasuredRow[]>()
  for (const r of rows) groups.set(hardwareKey(r.query), [...(groups.get(hardwareKey(r.query)) ?? []), r])
  return groups
}

function perHardware(rows: readonly MeasuredRow[], predictions: readonly number[]): HardwareCv[] {
  const index = new Map(rows.map((r, i) => [r, i]))
  return [...groupByHardware(rows)].map(([hardware, rs]) => ({
    hardware, rows: rs.length, cvMape: mapeOf(rs.map((r) => predictions[index.get(r)!]!), rs.map((r) => r.measuredTps)),
  }))
}

/** The fewest measurements calibration takes per hardware. */
export const MIN_CALIBRATION_POINTS = 3

export interface HardwareCalibration extends CalibrationResult {
  /** Preset names the rows gave for this hardware, if any. */
  hardware: string[]
  lines: number[]
}

/** A hardware key with the preset names its rows gave: "rtx-4090 (1008GB/s|330TFLOPS)". */
export function hardwareLabel(key: string, rows: readonly MeasuredRow[]): string {
  const names = [...new Set(rows.flatMap((r) => (r.hardware ? [r.hardware] : [])))]
  return names.length ? `${names.join('/')} (${key})` : key
}

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const CalibratedFileSchema: z.ZodObject<{
  format: z.ZodLiteral<'kerneltune.calibrated-model'>; version: z.ZodLiteral<1>; base: z.ZodUnknown; corrections: typeof CorrectionsSchema; calibration: z.ZodOptional<z.ZodUnknown>
}> = z.object({ format: z.literal('kerneltune.calibrated-model'), version: z.literal(1), base: z.unknown(), corrections: CorrectionsSchema, calibration: z.unknown().optional() })
export type CalibratedFile = z.infer<typeof CalibratedFileSchema>

const isCalibratedFile = (json: unknown): boolean => (json as { format?: string } | null)?.format === 'kerneltune.calibrated-model'

/** The learned model of a saved file: a trained model, or the base of a calibrated one. */
export function learnedFromFile(json: unknown): LearnedModel {
  return LearnedModel.fromJSON(isCalibratedFile(json) ? parseWith(CalibratedFileSchema, json, 'calibrated model').base : json)
}

/** The corrections of a calibrated file; none for a trained model's file. */
export function correctionsOf(json: unknown): Record<string, number> {
  return isCalibratedFile(json) ? { ...parseWith(CalibratedFileSchema, json, 'calibrated model').corrections } : {}
}

export interface RowsCalibration {
  groups: Map<string, MeasuredRow[]>
  results: HardwareCalibration[]
  /** The measured hardware's corrections, with the earlier file's for hardware not measured now. */
  corrections: Record<string, number>
  /** Hardware keys whose earlier corrections were kept. */
  keptFor: string[]
}

/**
 * Hardware with fewer than MIN_CALIBRATION_POINTS rows, described with their lines
 * ("rtx-4090 (…) has 2 (lines 3, 4)"), or undefined when every hardware has enough.
 */
export function tooFewPerHardware(rows: readonly MeasuredRow[]): string | undefined {
  const few = [...groupByHardware(rows)].filter(([, rs]) => rs.length < MIN_CALIBRATION_POINTS)
  if (!few.length) return undefined
  return `calibration needs at least ${MIN_CALIBRATION_POINTS} measurements per hardware; ${few.map(([k, rs]) => `${hardwareLabel(k, rs)} has ${rs.length} (line${rs.length > 1 ? 's' : ''} ${rs.map((r) => r.line).join(', ')})`).join('; ')}`
}

/** Calibrates `base` per hardware of the rows; `kept` are an earlier calibrated file's corrections. */
export function calibrateRows(base: LearnedModel, rows: readonly MeasuredRow[], kept: Readonly<Record<string, number>> = {}): RowsCalibration {
  const groups = groupByHardware(rows)
  const results: HardwareCalibration[] = [...groups].map(([, rs]) => {
    const { result } = calibrate(base, rs.map((r) => ({ query: r.query, measuredTps: r.measuredTps })))
    return { ...result, hardware: [...new Set(rs.flatMap((r) => (r.hardware ? [r.hardware] : [])))], lines: rs.map((r) => r.line) }
  })
  // A physics base also gets its overhead multiplier ("<hardwareKey>|overhead") and a work factor per
  // weight format ("<hardwareKey>|quant:<format>"), all in the result's corrections (issue 18).
  // A measured hardware's earlier corrections go entirely (its per-format ones too), not just those re-fitted.
  const measured = (k: string) => groups.has(k.split('|').slice(0, 2).join('|'))
  const corrections = { ...Object.fromEntries(Object.entries(kept).filter(([k]) => !measured(k))), ...Object.fromEntries(results.flatMap((r) => Object.entries(r.corrections))) }
  return { groups, results, corrections, keptFor: Object.keys(kept).filter((k) => !groups.has(k)) }
}

/** The calibrated-model file of `base` with `corrections`, checked as loading it will check it. */
export function calibratedFile(base: LearnedModel, corrections: Record<string, number>, calibration: unknown): CalibratedFile {
  const file = parseWith(CalibratedFileSchema, { format: 'kerneltune.calibrated-model', version: 1, base: base.toJSON(), corrections, calibration }, 'calibrated model')
  void new CalibratedModel(base, file.corrections)
  return file
}
