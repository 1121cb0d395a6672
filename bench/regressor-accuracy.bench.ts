/**
 * Accuracy of the throughput models on hardware they never saw (issue 18): leave-one-hardware-out
 * MAPE for decode and prefill of the ridge and the physics model (plus a random forest with
 * --forest, slow), over rows and averaged over chips, the 90% split-conformal interval's held-out
 * coverage and median relative width, and the pass/fail of each target. Deterministic: the same
 * data gives the same figures; only the timings vary. The rows PROVENANCE flags as anomalous are
 * excluded by rule, and the winner is scored once more with them kept (withFlaggedRows).
 * "rows" targets are over every held-out row, "chips" over the mean of per-chip MAPEs (each unseen
 * chip once); both are reported, each with its own pass/fail.
 * Writes bench/results/regressor-accuracy.json. Needs ../shared/data/llm_throughput.
 *
 *   pnpm bench regressor-accuracy
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CANDIDATES, FOREST, TARGETS, coverageOf, evaluateModel, intervalMeetsTarget as inRange, pickWinner, supportSplit } from '../packages/regressor/scripts/accuracy.ts'
import { loadThroughputData } from '../packages/regressor/scripts/data-rows.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const DATA = join(HERE, '../../shared/data/llm_throughput')
if (!existsSync(DATA)) {
  console.error(`regressor-accuracy: ${DATA} is absent; nothing measured`)
  process.exit(process.env.CI === 'true' ? 1 : 0)
}
const samples = loadThroughputData(DATA).samples
// The rows PROVENANCE flags as anomalous are excluded by rule (data-rows.ts); the winner is also scored with them kept.
const flaggedKept = loadThroughputData(DATA, { keepFlagged: true }).samples
const models = [...CANDIDATES, ...(process.argv.includes('--forest') ? [FOREST] : [])].map((c) => {
  const m = evaluateModel(samples, c.label, c.options)
  console.error(`${c.label}: decode ${(m.overall.decode * 100).toFixed(1)}%, prefill ${(m.overall.prefill * 100).toFixed(1)}% (${m.seconds.toFixed(0)} s)`)
  return m
})
const best = pickWinner(models)
const cov = coverageOf(samples, best.predictions)
const support = supportSplit(samples, best.predictions)
const kept = evaluateModel(flaggedKept, `${best.label}, flagged rows kept`, best.options)
const keptCov = coverageOf(flaggedKept, kept.predictions)
const result = {
  measured: true,
  what: 'leave-one-hardware-out accuracy on ../shared/data/llm_throughput (each chip predicted by a model trained without it); one deterministic run',
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`,
  samples: samples.length,
  models: models.map((m) => ({ label: m.label, kind: m.options.kind, overall: m.overall, chipMean: m.chipMean, byHardware: m.byHardware, seconds: m.seconds })),
  winner: best.label,
  withFlaggedRows: { samples: flaggedKept.length, overall: kept.overall, chipMean: kept.chipMean, interval: { decode: keptCov.decode, prefill: keptCov.prefill } },
  interval: { level: 0.9, decode: cov.decode, prefill: cov.prefill, all: cov.all, byHardware: cov.byGroup },
  // Rows whose backend and build another chip shares vs the rows of a chip that is the only one of its kind.
  bySupport: support,
  targets: {
    ...TARGETS,
    decodeRows: best.overall.decode <= TARGETS.decodeMape,
    decodeChips: best.chipMean.decode <= TARGETS.decodeMape,
    prefillRows: best.overall.prefill <= TARGETS.prefillMape,
    prefillChips: best.chipMean.prefill <= TARGETS.prefillMape,
    intervalDecode: inRange(cov.decode),
    intervalPrefill: inRange(cov.prefill),
    sharedBackendBuild: {
      decode: support.shared.decode.mapeRows <= TARGETS.decodeMape, prefill: support.shared.prefill.mapeRows <= TARGETS.prefillMape,
      intervalDecode: inRange(support.shared.decode.interval), intervalPrefill: inRange(support.shared.prefill.interval),
    },
  },
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'regressor-accuracy.json'), JSON.stringify(result, null, 2) + '\n')
console.log(JSON.stringify({ winner: result.winner, targets: result.targets, interval: { decode: cov.decode, prefill: cov.prefill } }, null, 2))
