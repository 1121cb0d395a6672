/**
 * `--slo`, `--objective` and `--records` as `bench serve`, `bench capacity` and `sweep` take them
 * (read and written by compose's objectives.node.ts), and the assessment they share: each measured
 * candidate's feasibility, violations and goodput under the objectives, the Pareto front of throughput against latency, and (where there are
 * defaults to beat) the decision. The objectives themselves are @kerneltune/serving's.
 */
import { objectivesFromFields, writeRecordLines } from '@kerneltune/compose/node'
import { describeSlo, describeViolation, SLO_NAMES, type CandidateAssessment, type Objectives, type RecordLine } from '@kerneltune/serving'
import type { FlagSpec } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { fmt } from '../../cli/output.ts'

export const OBJECTIVE_FLAGS = [
  { name: 'slo', type: 'string', description: `Latency objectives, NAME=MS comma-separated: one or more of TTFT, TPOT, ITL, E2E at mean, p50, p90, p95, p99 (${SLO_NAMES[0]} .. ${SLO_NAMES[SLO_NAMES.length - 1]}), e.g. ttft_p99_ms=500,tpot_p99_ms=50. A candidate that misses one is infeasible.`, valueName: 'NAME=MS[,...]' },
  { name: 'objective', type: 'string', description: 'What to maximise among feasible candidates: goodput (requests/s meeting every --slo objective; the default with --slo), outputTokensPerSecond, requestThroughput, or a latency statistic to minimise (e.g. ttft_p99_ms).', valueName: 'NAME' },
  { name: 'records', type: 'string', description: 'Write one JSON line per measured request (candidate, ok, ttftMs, tpotMs, e2eMs, outputTokens, startMs, itlMs) to this file, to recompute every figure.', valueName: 'FILE' },
] as const satisfies readonly FlagSpec[]

export { assess, type Assessment, type CandidateAssessment, type Objectives } from '@kerneltune/serving'

/** The objectives the flags state; undefined when neither --slo nor --objective is given. Errors are usage errors (exit 2). */
export const objectivesFromFlags = objectivesFromFields

/** One candidate's verdict in words: 'meets the objectives' or the objectives missed, by how much. */
export const verdictOf = (c: CandidateAssessment): string => (c.feasible ? 'meets' : `misses: ${c.violations.map(describeViolation).join('; ')}`)

/** The header lines every command prints with objectives. */
export function objectivesHeader(o: Objectives): string {
  const goal = o.objective.direction === 'max' ? `maximise ${o.objective.name}` : `minimise ${o.objective.name}`
  return `objectives: ${o.slo.length ? describeSlo(o.slo) : 'none stated'}; ${goal}\n`
}

export const fmtValue = (x: number | null) => (x === null ? '-' : fmt(x, 2))

/** Writes --records: one JSON line per request. */
export const writeRecords = (io: Io, file: string, lines: readonly RecordLine[]): Promise<string> => writeRecordLines(io.cwd, file, lines)
