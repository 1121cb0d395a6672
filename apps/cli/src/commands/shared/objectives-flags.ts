/**
 * `--slo`, `--objective` and `--records` as `bench serve`, `bench capacity` and `sweep` take them,
 * and the assessment they share: each measured candidate's feasibility, violations and goodput
 * under the objectives, the Pareto front of throughput against latency, and (where there are
 * defaults to beat) the decision. The objectives themselves are @kerneltune/serving's.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  describeSlo,
  describeViolation,
  OBJECTIVE_NAMES,
  parseSlo,
  recordLines,
  resolveObjectives,
  SLO_NAMES,
  type CandidateAssessment,
  type Objectives,
  type RecordLine,
} from '@kerneltune/serving'
import { isKerneltuneError } from '@kerneltune/core'
import { usageError, type FlagSpec } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { fmt } from '../../cli/output.ts'

export const OBJECTIVE_FLAGS = [
  { name: 'slo', type: 'string', description: `Latency objectives, NAME=MS comma-separated: one or more of TTFT, TPOT, ITL, E2E at mean, p50, p90, p95, p99 (${SLO_NAMES[0]} .. ${SLO_NAMES[SLO_NAMES.length - 1]}), e.g. ttft_p99_ms=500,tpot_p99_ms=50. A candidate that misses one is infeasible.`, valueName: 'NAME=MS[,...]' },
  { name: 'objective', type: 'string', description: 'What to maximise among feasible candidates: goodput (requests/s meeting every --slo objective; the default with --slo), outputTokensPerSecond, requestThroughput, or a latency statistic to minimise (e.g. ttft_p99_ms).', valueName: 'NAME' },
  { name: 'records', type: 'string', description: 'Write one JSON line per measured request (candidate, ok, ttftMs, tpotMs, e2eMs, outputTokens, startMs, itlMs) to this file, to recompute every figure.', valueName: 'FILE' },
] as const satisfies readonly FlagSpec[]

export { assess, type Assessment, type CandidateAssessment, type Objectives } from '@kerneltune/serving'

/** The objectives the flags state; undefined when neither --slo nor --objective is given. Errors are usage errors (exit 2). */
export function objectivesFromFlags(f: { readonly slo?: string | undefined; readonly objective?: string | undefined }): Objectives | undefined {
  if (f.slo === undefined && f.objective === undefined) return undefined
  // Each flag parsed on its own first, so an error names the flag it is about.
  if (f.slo !== undefined) asUsage('--slo', () => parseSlo(f.slo!))
  if (f.objective === 'goodput' && f.slo === undefined) throw usageError('--objective goodput counts the requests that meet the latency objectives: state them with --slo, e.g. --slo ttft_p99_ms=500,tpot_p99_ms=50')
  return asUsage('--objective', () => resolveObjectives(f))
}

/** A parse error of a flag's value as a usage error (exit 2) that names the flag. */
function asUsage<T>(flag: string, parse: () => T): T {
  try {
    return parse()
  } catch (e) {
    if (isKerneltuneError(e) && e.code === 'INVALID_INPUT') throw usageError(`${flag}: ${e.message}`, { accepted: { slo: SLO_NAMES, objective: OBJECTIVE_NAMES } })
    throw e
  }
}

/** One candidate's verdict in words: 'meets the objectives' or the objectives missed, by how much. */
export const verdictOf = (c: CandidateAssessment): string => (c.feasible ? 'meets' : `misses: ${c.violations.map(describeViolation).join('; ')}`)

/** The header lines every command prints with objectives. */
export function objectivesHeader(o: Objectives): string {
  const goal = o.objective.direction === 'max' ? `maximise ${o.objective.name}` : `minimise ${o.objective.name}`
  return `objectives: ${o.slo.length ? describeSlo(o.slo) : 'none stated'}; ${goal}\n`
}

export const fmtValue = (x: number | null) => (x === null ? '-' : fmt(x, 2))

/** Writes --records: one JSON line per request. */
export async function writeRecords(io: Io, file: string, lines: readonly RecordLine[]): Promise<string> {
  const path = resolve(io.cwd, file)
  await writeFile(path, recordLines(lines)).catch((e: Error) => {
    throw usageError(`--records: cannot write ${path}: ${e.message}`)
  })
  return path
}
