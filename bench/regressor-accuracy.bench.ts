/**
 * Accuracy of the pretrained throughput model on chips it never saw (issue 26): nested
 * leave-one-chip-out (packages/regressor/scripts/nested.ts: a chip is a die, its labels held out
 * together; the variant and the 90% interval chosen and calibrated inside each outer fold), MAPE per
 * phase over rows and over chips, interval coverage and median width, the decode error of every
 * current-build discrete GPU (the GPU kit's H100 and H200 rows under bench/results included, as in training), and the verdict on each target. The same evaluation the training
 * script runs (and writes into the asset and both READMEs); deterministic except the timing.
 * Writes bench/results/regressor-accuracy.json. Needs ../shared/data/llm_throughput.
 *
 *   pnpm bench regressor-accuracy
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TARGETS, summarize } from '../packages/regressor/scripts/accuracy.ts'
import { loadThroughputData } from '../packages/regressor/scripts/data-rows.ts'
import { kitPaths } from '../packages/regressor/scripts/kit-rows.ts'
import { INNER_FOLDS, VARIANTS } from '../packages/regressor/scripts/nested.ts'
import { runNested } from '../packages/regressor/scripts/nested-parallel.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const DATA = join(HERE, '../../shared/data/llm_throughput')
if (!existsSync(DATA)) {
  console.error(`regressor-accuracy: ${DATA} is absent; nothing measured`)
  process.exit(process.env.CI === 'true' ? 1 : 0)
}
const loadStart = os.loadavg()
// The same rows as the training script: the public files and the GPU kit's own H100 and H200 rows.
const samples = loadThroughputData(DATA, kitPaths()).samples
// Two child processes: the machine's two cores (the figures are the same for any number).
const outer = await runNested(samples, 2, (line) => console.error(line))
const summary = summarize(samples, outer)
const result = {
  measured: true,
  what: 'nested leave-one-chip-out accuracy on ../shared/data/llm_throughput and the GPU kit rows of bench/results/gpu/predict-vs-measure.json (each chip predicted, with its 90% interval, by a model whose variant, fit and interval never saw it); one deterministic run',
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`,
  // Shared with other jobs: the evaluation's figures do not depend on the load, its seconds do.
  loadAverage: { start: loadStart, end: os.loadavg() },
  seconds: outer.seconds,
  samples: samples.length,
  chips: summary.chips,
  method: { variants: VARIANTS.map((v) => v.label), innerFolds: INNER_FOLDS },
  targets: { ...TARGETS, verdicts: summary.targets },
  decode: summary.decode,
  prefill: summary.prefill,
  extrapolating: summary.extrapolating,
  inside: summary.inside,
  currentGpus: summary.currentGpus,
  byChip: summary.byChip,
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'regressor-accuracy.json'), JSON.stringify(result, null, 2) + '\n')
console.log(JSON.stringify({ targets: summary.targets }, null, 2))
