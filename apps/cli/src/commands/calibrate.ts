/**
 * `kerneltune calibrate`: corrects a throughput model for the user's own machine(s) from a few
 * measurements: per hardware, a multiplicative factor (geometric mean of measured ÷ predicted,
 * @kerneltune/regressor's `calibrate`). It reports the MAPE before and the leave-one-out MAPE
 * after (each point corrected by a factor fitted without it), so the improvement shown is not
 * measured on the points that produced it. Writes a calibrated-model JSON that `predict` and
 * `recommend` load with --model-file.
 */
import { MIN_CALIBRATION_POINTS as MIN_POINTS, calibrateRows, tooFewPerHardware, calibratedFile, correctionsOf, hardwareLabel as label } from '@kerneltune/regressor'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { writeFileAtomic } from '../cli/files.ts'
import { fmt, keyValues, pct, table } from '../cli/output.ts'
import { loadLearned } from './predict.ts'
import { readJsonFile } from './shared/target-flags.ts'
import { measurementFlags, readMeasurementFile, ROW_KEYS } from './train/rows.ts'

const [MEASUREMENTS, OUT, SKIP_BAD] = measurementFlags('measurements', 'Local measurements', 'the calibrated model JSON')

export const calibrateCommand = defineCommand({
  name: 'calibrate',
  summary: 'Calibrate a throughput model to your hardware from 3 or more local measurements.',
  description: `Reads --measurements (CSV with a header row, or JSON lines), one measured point per row, keys named like predict's: ${ROW_KEYS.join(', ')}; measuredTps (tokens/s) is the measured value (tokens_per_s is accepted instead). Rows are grouped by hardware (memory bandwidth and TFLOPS); each hardware needs at least ${MIN_POINTS} points. The base model is the pretrained one, or --model-file (a model from \`kerneltune train\`, or a calibrated file, whose base is recalibrated: its corrections for other hardware are kept, those for the measured hardware replaced). For each hardware it fits measured ≈ factor × predicted and prints the MAPE before and the leave-one-out MAPE after. Predictions stay clamped by the roofline bound; hardware without a correction is predicted by the base model unchanged.`,
  flags: [
    MEASUREMENTS,
    { name: 'model-file', type: 'string', valueName: 'BASE', description: 'The model to calibrate (kerneltune train / calibrate output). Default: the pretrained model.' },
    OUT,
    SKIP_BAD,
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
    const few = tooFewPerHardware(read.rows)
    if (few) throw usageError(`--measurements: ${few}`)
    const base = await loadLearned(ctx.io, f.modelFile)
    const kept = f.modelFile !== undefined ? correctionsOf(await readJsonFile(ctx.io, f.modelFile, 'model-file')) : {}
    const { groups, results, corrections, keptFor } = calibrateRows(base, read.rows, kept)
    const file = calibratedFile(base, corrections, { measurements, baseModel: f.modelFile ?? 'pretrained', results })
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
    if (keptFor.length) ctx.io.stdout(`\nKept the base file's corrections for: ${keptFor.join(', ')}\n`)
  },
})
