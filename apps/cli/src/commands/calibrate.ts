/**
 * `kerneltune calibrate`: corrects a throughput model for the user's own machine(s) from a few
 * measurements: per hardware, a multiplicative factor (geometric mean of measured ÷ predicted,
 * @kerneltune/regressor's `calibrate`). It reports the MAPE before and the leave-one-out MAPE
 * after (each point corrected by a factor fitted without it), so the improvement shown is not
 * measured on the points that produced it. Writes a calibrated-model JSON that `predict` and
 * `recommend` load with --model-file.
 */
import { parseWith } from '@kerneltune/core'
import { CalibratedModel, calibrate, hardwareKey, type CalibrationResult, type LearnedModel } from '@kerneltune/regressor'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, table } from '../cli/output.ts'
import { CalibratedFileSchema, loadLearned, readJsonFile } from './predict/models.ts'
import { writeFileAtomic } from './train.ts'
import { readMeasurementFile, ROW_KEYS, SKIP_BAD_FLAG, type MeasuredRow } from './train/rows.ts'

const MIN_POINTS = 3
const pct = (x: number) => `${fmt(x * 100, 1)}%`

export interface HardwareCalibration extends CalibrationResult {
  /** Preset names the rows gave for this hardware, if any. */
  hardware: string[]
  lines: number[]
}

export const calibrateCommand = defineCommand({
  name: 'calibrate',
  summary: 'Calibrate a throughput model to your hardware from 3 or more local measurements.',
  description: `Reads --measurements (CSV with a header row, or JSON lines), one measured point per row, keys named like predict's: ${ROW_KEYS.join(', ')}; measuredTps (tokens/s) is the measured value (tokens_per_s is accepted instead). Rows are grouped by hardware (memory bandwidth and TFLOPS); each hardware needs at least ${MIN_POINTS} points. The base model is the pretrained one, or --model-file (a model from \`kerneltune train\`, or a calibrated file, whose base is recalibrated: its corrections for other hardware are kept, those for the measured hardware replaced). For each hardware it fits measured ≈ factor × predicted and prints the MAPE before and the leave-one-out MAPE after. Predictions stay clamped by the roofline bound; hardware without a correction is predicted by the base model unchanged.`,
  flags: [
    { name: 'measurements', type: 'string', valueName: 'FILE', description: 'Local measurements: FILE.csv or FILE.jsonl (required).' },
    { name: 'model-file', type: 'string', valueName: 'BASE', description: 'The model to calibrate (kerneltune train / calibrate output). Default: the pretrained model.' },
    { name: 'out', type: 'string', valueName: 'FILE', description: 'Where to write the calibrated model JSON (required).' },
    SKIP_BAD_FLAG,
  ],
  jsonOutput: '{ "out": string (absolute path), "base": string, "measurements": { "file": string, "format": "csv" | "jsonl", "rows": number, "skipped": { line, message }[] }, "hardware": { hardwareKey, hardware: string[], lines: number[], factor, count, mapeBefore, mapeAfter (leave-one-out), improvementPct, points: { measuredTps, before, after }[] }[], "corrections": { [hardwareKey]: factor } }. MAPEs are fractions.',
  examples: [
    'kerneltune calibrate --measurements mine.csv --out calibrated.json',
    'kerneltune calibrate --measurements mine.jsonl --model-file my-model.json --out calibrated.json --json',
    'kerneltune predict --model llama-3-8b --hardware rtx-4090 --model-file calibrated.json',
  ],
  async run(ctx) {
    const f = ctx.flags
    const { file: measurements, out: outFile, read, skipped } = await readMeasurementFile(ctx.io, {
      flag: 'measurements', file: f.measurements, what: 'CSV or JSON lines of local measurements', out: f.out, outWhat: 'where the calibrated model JSON is written', skipBad: f.skipBad,
    })
    if (read.rows.length < MIN_POINTS) {
      throw usageError(`--measurements: "${measurements}" has ${read.rows.length} usable measurement(s); calibration needs at least ${MIN_POINTS} on one hardware`)
    }
    const groups = new Map<string, MeasuredRow[]>()
    for (const r of read.rows) groups.set(hardwareKey(r.query), [...(groups.get(hardwareKey(r.query)) ?? []), r])
    const few = [...groups].filter(([, rs]) => rs.length < MIN_POINTS)
    if (few.length) {
      throw usageError(`--measurements: calibration needs at least ${MIN_POINTS} measurements per hardware; ${few.map(([k, rs]) => `${label(k, rs)} has ${rs.length} (line${rs.length > 1 ? 's' : ''} ${rs.map((r) => r.line).join(', ')})`).join('; ')}`)
    }
    const base: LearnedModel = await loadLearned(ctx.io, f.modelFile)
    const kept = f.modelFile !== undefined ? await previousCorrections(ctx.io, f.modelFile) : {}
    const results: HardwareCalibration[] = [...groups].map(([, rs]) => {
      const { result } = calibrate(base, rs.map((r) => ({ query: r.query, measuredTps: r.measuredTps })))
      return { ...result, hardware: [...new Set(rs.flatMap((r) => (r.hardware ? [r.hardware] : [])))], lines: rs.map((r) => r.line) }
    })
    // A physics base also gets its overhead multiplier ("<hardwareKey>|overhead") and a work factor per
    // weight format ("<hardwareKey>|quant:<format>"), all in the result's corrections (issue 18).
    // A measured hardware's earlier corrections go entirely (its per-format ones too), not just those re-fitted.
    const measured = (k: string) => groups.has(k.split('|').slice(0, 2).join('|'))
    const corrections = { ...Object.fromEntries(Object.entries(kept).filter(([k]) => !measured(k))), ...Object.fromEntries(results.flatMap((r) => Object.entries(r.corrections))) }
    const file = parseWith(CalibratedFileSchema, {
      format: 'kerneltune.calibrated-model', version: 1, base: base.toJSON(), corrections,
      calibration: { measurements, baseModel: f.modelFile ?? 'pretrained', results },
    }, 'calibrated model')
    // Constructing the model checks the corrections the way `predict --model-file` will.
    void new CalibratedModel(base, file.corrections)
    const out = await writeFileAtomic(ctx.io, outFile, JSON.stringify(file) + '\n', 'out')
    const baseName = f.modelFile !== undefined ? `${base.name} (${f.modelFile})` : `pretrained (${base.name})`
    if (ctx.json) {
      return void ctx.printJson({
        out, base: baseName, measurements: { file: measurements, format: read.format, rows: read.rows.length, skipped },
        hardware: results, corrections,
      })
    }
    ctx.io.stdout(keyValues([
      ['base model', baseName],
      ['measurements', `${read.rows.length} from ${measurements} (${read.format})${skipped.length ? `, ${skipped.length} bad row(s) skipped` : ''}`],
      ['written', out],
    ]))
    ctx.io.stdout('\n' + table(results.map((r) => [label(r.hardwareKey, groups.get(r.hardwareKey)!), r.count, fmt(r.factor, 3), pct(r.mapeBefore), pct(r.mapeAfter)]), ['hardware', 'points', 'factor', 'MAPE before', 'MAPE after (leave-one-out)']))
    // With few points the held-out error can grow (the model's errors differ in sign across sizes
    // or batches); say so rather than let a larger number pass unnoticed.
    for (const r of results.filter((x) => x.mapeAfter >= x.mapeBefore)) {
      ctx.io.stdout(`\nNote: on ${label(r.hardwareKey, groups.get(r.hardwareKey)!)} the held-out MAPE did not improve (${pct(r.mapeBefore)} → ${pct(r.mapeAfter)}); the base model's errors vary across these points more than one factor can correct. More measurements, or the uncalibrated model, may serve better.\n`)
    }
    const kept2 = Object.keys(kept).filter((k) => !groups.has(k))
    if (kept2.length) ctx.io.stdout(`\nKept the base file's corrections for: ${kept2.join(', ')}\n`)
  },
})

function label(key: string, rows: readonly MeasuredRow[]): string {
  const names = [...new Set(rows.flatMap((r) => (r.hardware ? [r.hardware] : [])))]
  return names.length ? `${names.join('/')} (${key})` : key
}

async function previousCorrections(io: Parameters<typeof readJsonFile>[0], file: string): Promise<Record<string, number>> {
  const json = await readJsonFile(io, file, 'model-file')
  if ((json as { format?: string })?.format !== 'kerneltune.calibrated-model') return {}
  return { ...parseWith(CalibratedFileSchema, json, 'calibrated model').corrections }
}
