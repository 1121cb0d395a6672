/**
 * The throughput model a command predicts with: the pretrained one by default, trueno's
 * heuristic on request, or a saved file (a model from `kerneltune train`, or a calibrated one
 * from `kerneltune calibrate`), checked by its schema, with the version a results file names.
 */
import { z } from 'zod'
import { KerneltuneError, isKerneltuneError, parseWith } from '@kerneltune/core'
import { CalibratedModel } from './calibrate.ts'
import { CalibratedFileSchema } from './fit-rows.ts'
import { heuristicModel } from './heuristic.ts'
import { LearnedModel, type IntervalPrediction } from './learned.ts'
import { pretrainedModel } from './pretrained.ts'
import { queryFromRow } from './measurement-rows.ts'
import { VENDOR_NAMES, featuresFromQuery, parseQuery, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'

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

function learned(m: LearnedModel, name: string, version: string): Predictor {
  const note = extrapolationNote(m)
  return { name, modelVersion: version, predict: (q) => m.predict(q), ...(note ? { extrapolationNote: note } : {}) }
}

/**
 * The predictor for a request: `heuristic`, else the saved model `file` (its parsed JSON in
 * `json`), else the pretrained model.
 */
export function predictorFor(o: { heuristic?: boolean; file?: string; json?: unknown }): Predictor {
  if (o.heuristic) {
    if (o.file !== undefined) throw new KerneltuneError('INVALID_INPUT', 'give --heuristic or --model-file, not both')
    const h = heuristicModel()
    return { name: 'heuristic (trueno default)', modelVersion: 'heuristic (trueno default weights)', predict: (q) => h.predict(featuresFromQuery(q)) }
  }
  if (o.file === undefined) {
    const m = pretrainedModel()
    return learned(m, `pretrained (${m.name})`, versionOf(m, m.name))
  }
  if ((o.json as { format?: string } | null)?.format === 'kerneltune.calibrated-model') {
    const c = parseWith(CalibratedFileSchema, o.json, 'calibrated model')
    const base = LearnedModel.fromJSON(c.base)
    const m = new CalibratedModel(base, c.corrections)
    return { name: `calibrated (${o.file})`, modelVersion: `calibrated (${o.file}) on ${versionOf(base, 'a saved model')}`, predict: (q) => m.predict(q) }
  }
  const m = LearnedModel.fromJSON(o.json)
  return learned(m, `${m.name} (${o.file})`, versionOf(m, `${m.name} (${o.file})`))
}

/**
 * One line of a JSON-lines file predicted (`kerneltune predict --input`): the prediction with the
 * model version and the query, or the line's error, so one bad line does not stop the rest.
 */
export function predictLine(predictor: Predictor, text: string, line: number): Record<string, unknown> {
  try {
    const q = queryFromRow(JSON.parse(text))
    return { line, ...predictor.predict(q), modelVersion: predictor.modelVersion, query: q }
  } catch (err) {
    return { line, error: isKerneltuneError(err) ? { code: err.code, message: err.message } : { code: 'INVALID_INPUT', message: (err as Error).message } }
  }
}

/** The model and hardware of a query, as @kerneltune/features resolves them from flags or presets. */
export interface QueryTarget {
  model: { paramsB: number; activeParamsB?: number | undefined; quant: string }
  hardware: { memBwGbs: number; fp16Tflops: number; unifiedMemory?: boolean | undefined; vendor?: string | undefined; tdpWatts?: number | undefined }
  workload: Pick<ThroughputQueryInput, 'batch' | 'phase' | 'promptTokens' | 'contextTokens'>
}

/**
 * The query for a model on hardware under a workload (a vendor the regressor does not know is
 * "other"), with the given `extra` fields (backend, micro-batch, kernel figures, …) over it.
 */
export function targetQuery(t: QueryTarget, extra: { [K in keyof ThroughputQueryInput]?: ThroughputQueryInput[K] | undefined } = {}): ThroughputQuery {
  const { model: m, hardware: hw } = t
  return parseQuery({
    paramsB: m.paramsB, activeParamsB: m.activeParamsB, quant: m.quant, memBwGbs: hw.memBwGbs, tflops: hw.fp16Tflops,
    unifiedMemory: hw.unifiedMemory ?? false, vendor: VENDOR_NAMES.find((v) => v === hw.vendor) ?? 'other',
    // Board power, where the preset has it: the physics model's power-limited prefill (issue 18).
    ...(hw.tdpWatts ? { tdpWatts: hw.tdpWatts } : {}),
    ...t.workload, ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  })
}
