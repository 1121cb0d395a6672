/**
 * `kerneltune train`: fits a throughput model (ridge or random forest, @kerneltune/regressor's
 * LearnedModel) on the user's own measurements and writes it as JSON that `predict`, `recommend`
 * and `calibrate` load with --model-file. Accuracy is reported honestly: k-fold cross-validated
 * MAPE (each row predicted by a model that never saw it, and stored as the model's MAPE, which
 * drives its confidence) next to the training MAPE, plus permutation importance.
 */
import { DEFAULT_FOREST, fitRows, minTrainingRows, type TrainOptions } from '@kerneltune/regressor'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { EXIT } from '../cli/run.ts'
import { writeFileAtomic } from '../cli/files.ts'
import { fmt, keyValues, pct, progressBar, table } from '../cli/output.ts'
import { measurementFlags, readMeasurementFile, ROW_KEYS } from './train/rows.ts'

const [DATA, OUT, SKIP_BAD] = measurementFlags('data', 'Measurements', 'the model JSON')

export const trainCommand = defineCommand({
  name: 'train',
  summary: 'Train a throughput model (ridge or random forest) on your measurements and save it.',
  description: `Reads --data (CSV with a header row, or JSON lines), one measurement per row, keys named like predict's: ${ROW_KEYS.join(', ')}. The target is measuredTps (tokens/s; tokens_per_s is accepted instead). Each row needs hardware (a preset of \`kerneltune hardware list\`) or both memBwGbs and tflops; quant defaults to Q4_K, batch to 1, phase to decode. Every row is checked; bad rows are listed with their line numbers and the command exits 2, unless --skip-bad leaves them out (they are then listed on stderr). At least 10 rows and 2 × --folds are needed. Prints the k-fold cross-validated MAPE (stored in the model, it sets prediction confidence), the training MAPE, per-hardware CV MAPE and the top permutation importances, then writes the model JSON atomically.`,
  flags: [
    DATA,
    { name: 'model', type: 'string', choices: ['linear', 'rf'], default: 'linear', description: 'linear: ridge regression (extrapolates to unseen hardware); rf: random forest.' },
    OUT,
    { name: 'folds', type: 'integer', valueName: 'K', min: 2, max: 50, default: 5, description: 'Cross-validation folds.' },
    { name: 'seed', type: 'integer', valueName: 'S', min: 0, default: 42, description: 'Seed for fold assignment, forest and permutation importance.' },
    { name: 'trees', type: 'integer', valueName: 'N', min: 1, max: 2000, default: DEFAULT_FOREST.nEstimators, description: 'Trees in the random forest (--model rf).' },
    { name: 'lambda', type: 'number', valueName: 'L', min: 0, default: 1, description: 'Ridge penalty on standardised features (--model linear).' },
    SKIP_BAD,
    { name: 'max-cv-mape', type: 'number', valueName: 'PCT', min: 0, description: 'Quality gate: exit 3 if the cross-validated MAPE is above PCT percent (the model is still written).' },
    { name: 'name', type: 'string', valueName: 'NAME', description: 'Label stored in the model and in its predictions (default: linear / forest).' },
  ],
  jsonOutput: '{ "out": string (absolute path), "model": { "kind": "linear" | "forest", "name": string, "sampleCount": number }, "data": { "file": string, "format": "csv" | "jsonl", "rows": number, "skipped": { line, message }[] }, "cv": { "folds": number, "mape": number }, "trainMape": number, "byHardware": { hardware, rows, cvMape }[], "importance": [feature, mapeIncrease][] (all features, largest first), "gate"?: { "maxCvMape": number, "passed": boolean } }. MAPEs are fractions.',
  examples: [
    'kerneltune train --data runs.csv --model linear --out my-model.json',
    'kerneltune train --data runs.jsonl --model rf --trees 50 --folds 5 --seed 1 --out rf.json --json',
    'kerneltune predict --model llama-3-8b --hardware rtx-4090 --model-file my-model.json',
  ],
  async run(ctx) {
    const f = ctx.flags
    const k = f.folds ?? 5
    const seed = f.seed ?? 42
    const { file: data, out: outFile, read, skipped } = await readMeasurementFile(ctx.io, {
      flag: 'data', file: f.data, what: 'CSV or JSON lines of measurements', out: f.out, outWhat: 'where the model JSON is written', skipBad: f.skipBad,
    })
    const need = minTrainingRows(k)
    if (read.rows.length < need) {
      throw usageError(`--data: "${data}" has ${read.rows.length} usable row(s); training with ${k}-fold cross-validation needs at least ${need} (10, and 2 × --folds)`)
    }
    const kind = f.model === 'rf' ? 'forest' : 'linear'
    const opts: TrainOptions = kind === 'forest'
      ? { kind, forest: { nEstimators: f.trees ?? DEFAULT_FOREST.nEstimators, seed } }
      : { kind, lambda: f.lambda ?? 1 }
    if (f.name !== undefined) opts.name = f.name
    // Forests are slow enough (seconds to minutes) to deserve progress; ridge fits are instant.
    const bar = progressBar(ctx.io, `training ${kind}`, k + 2, kind === 'forest')
    const { model, cv, byHardware, importance } = fitRows(read.rows, opts, { k, seed, trainedOn: data, skippedLines: skipped.map((p) => p.line), onStep: (d, note) => bar.update(d, note) })
    bar.done('importance')
    const out = await writeFileAtomic(ctx.io, outFile, JSON.stringify(model.toJSON()) + '\n', 'out')
    const gate = f.maxCvMape !== undefined ? { maxCvMape: f.maxCvMape / 100, passed: cv.mape <= f.maxCvMape / 100 } : undefined
    if (ctx.json) {
      ctx.printJson({
        out, model: { kind, name: model.name, sampleCount: model.json.sampleCount },
        data: { file: data, format: read.format, rows: read.rows.length, skipped },
        cv: { folds: k, mape: cv.mape }, trainMape: model.json.trainMape, byHardware, importance, ...(gate ? { gate } : {}),
      })
    } else {
      ctx.io.stdout(keyValues([
        ['model', `${kind === 'forest' ? `random forest (${opts.forest!.nEstimators} trees)` : `ridge (lambda ${opts.lambda})`}, "${model.name}"`],
        ['data', `${read.rows.length} rows from ${data} (${read.format})${skipped.length ? `, ${skipped.length} bad row(s) skipped` : ''}`],
        [`${k}-fold CV MAPE`, `${pct(cv.mape)} (held out; used for confidence)`],
        ['training MAPE', pct(model.json.trainMape)],
        ['written', out],
      ]))
      if (byHardware.length > 1) ctx.io.stdout('\n' + table(byHardware.map((h) => [h.hardware, h.rows, pct(h.cvMape)]), ['hardware', 'rows', 'CV MAPE']))
      ctx.io.stdout('\nTop permutation importances (MAPE increase when the feature is shuffled)\n')
      ctx.io.stdout(table(importance.slice(0, 8).map(([n, v]) => [n, `${fmt(v * 100, 2)}%`]), ['feature', 'MAPE +']))
      if (gate && !gate.passed) ctx.io.stdout(`\nQuality gate failed: CV MAPE ${pct(cv.mape)} > --max-cv-mape ${fmt(f.maxCvMape!, 1)}%\n`)
    }
    return gate && !gate.passed ? EXIT.CHECK_FAILED : EXIT.OK
  },
})
