/**
 * Judges the committed bench/serving-noise.bench.ts results against both references (their own
 * interleaved one and bench/results/serving-reference.json, measured by blocks of sequential
 * repetitions) without measuring anything: what bench/serving-reference.bench.ts prints at its end.
 *
 *   pnpm exec tsx --conditions=@kerneltune/source bench/serving-noise-report.ts [result names]   (default serving-noise serving-noise-quiet)
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Verdict } from './support/serving-noise-summary.ts'
import { judgeFiles, printJudged } from './support/serving-noise-judge.ts'

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'results')
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['serving-noise', 'serving-noise-quiet']
const refFile = join(RESULTS_DIR, 'serving-reference.json')
const ref = existsSync(refFile) ? (JSON.parse(readFileSync(refFile, 'utf8')) as { perCombo: Record<string, Verdict>; aa: Verdict; at: string }) : undefined
if (!ref) console.error('no bench/results/serving-reference.json yet (pnpm bench serving-reference): every decision is unconfirmed against it')
else console.error(`sequential-blocks reference of ${ref.at}: ${Object.entries(ref.perCombo).map(([k, v]) => `${k} ${(v.improvement * 100).toFixed(1)}% p=${v.p.toPrecision(2)}`).join('; ')}; A/A ${(ref.aa.improvement * 100).toFixed(1)}% p=${ref.aa.p.toPrecision(2)}`)
const judged = judgeFiles(RESULTS_DIR, names, ref?.perCombo)
if (Object.keys(judged).length === 0) {
  console.error(`none of ${names.join(', ')} is in ${RESULTS_DIR}`)
  process.exit(2)
}
printJudged(judged)
