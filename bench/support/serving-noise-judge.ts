/**
 * The decisions of committed bench/serving-noise.bench.ts results judged against two references:
 * the interleaved one each file carries (the design judging itself) and the one of
 * bench/serving-reference.bench.ts (blocks of sequential repetitions on fresh servers), so the
 * design is not judged only by itself (issue 23 item 12).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { judgeAgainst, type Agreement, type Trial, type Verdict } from './serving-noise-summary.ts'

/** serving-noise.bench.ts's A/A arm: batch_size=4096, run as the defaults; a false winner, not a decision. */
export const NOISE_AA_LABEL = 'batch_size=4096'

export interface JudgedFile {
  readonly measuredAt: string
  readonly interleavedReference: { readonly rounds: number; readonly perCombo: Record<string, Verdict>; readonly aa: Verdict } | null
  readonly byDesign: Record<string, Record<string, Agreement>>
}

/** Each named results file that exists (bench/results/<name>.json), judged; missing ones are left out. */
export function judgeFiles(resultsDir: string, names: readonly string[], sequentialBlocks: Record<string, Verdict> | undefined): Record<string, JudgedFile> {
  const out: Record<string, JudgedFile> = {}
  for (const name of names) {
    const file = join(resultsDir, `${name}.json`)
    if (!existsSync(file)) continue
    const j = JSON.parse(readFileSync(file, 'utf8')) as { trials: Trial[]; reference: { rounds: number; perCombo: Record<string, Verdict>; aa: Verdict } | null; at: string }
    out[name] = {
      measuredAt: j.at,
      interleavedReference: j.reference ? { rounds: j.reference.rounds, perCombo: j.reference.perCombo, aa: j.reference.aa } : null,
      byDesign: judgeAgainst(j.trials, NOISE_AA_LABEL, { interleaved: j.reference?.perCombo, sequentialBlocks }),
    }
  }
  return out
}

export function printJudged(judged: Record<string, JudgedFile>) {
  for (const [name, j] of Object.entries(judged)) {
    const aa = j.interleavedReference?.aa
    console.error(`${name} (measured ${j.measuredAt}): decisions against each reference, agreeing / contradicting / unconfirmed${aa ? `; the interleaved reference's own A/A arm read ${(aa.improvement * 100).toFixed(1)}% (p = ${aa.p.toPrecision(2)}, ${aa.verdict})` : ''}`)
    console.table(Object.fromEntries(Object.entries(j.byDesign).map(([d, refs]) => [d, Object.fromEntries(Object.entries(refs).map(([r, a]) => [r, `${a.agreeing} / ${a.contradicting} / ${a.unconfirmed}`]))])))
  }
}
