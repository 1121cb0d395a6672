/**
 * Objectives as one value (the latency objectives and what to optimise) and the assessment of
 * measured candidates under them: each one's feasibility, violations, goodput and objective value,
 * the Pareto front of throughput against latency and, where there are defaults to beat, the
 * decision. One implementation for every caller: `bench serve`, `sweep`, and the tuner's runs and
 * tune sessions (their stored summaries carry the same shapes as the CLI's --json).
 */
import { KerneltuneError } from '@kerneltune/core'
import {
  decide,
  evaluate,
  objectiveValue,
  paretoAxes,
  paretoFront,
  parseObjective,
  parseSlo,
  type CandidateMetrics,
  type Decision,
  type Objective,
  type Slo,
  type Violation,
} from './objectives.ts'

export interface Objectives {
  readonly slo: Slo
  readonly objective: Objective
}

/**
 * The objectives a caller states: `slo` as text (`ttft_p99_ms=500`) or as name → limit, and the
 * objective's name. Without an objective: goodput when objectives are stated, else output tokens
 * per second. Goodput needs objectives (it counts the requests that meet them). Errors are
 * INVALID_INPUT naming the accepted names (parseSlo, parseObjective).
 */
export function resolveObjectives(input: { readonly slo?: string | Readonly<Record<string, number>> | undefined; readonly objective?: string | undefined }): Objectives {
  const slo = input.slo === undefined ? [] : parseSlo(typeof input.slo === 'string' ? input.slo : sloText(input.slo))
  const objective = parseObjective(input.objective ?? (slo.length ? 'goodput' : 'outputTokensPerSecond'))
  if (objective.name === 'goodput' && slo.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the goodput objective counts the requests that meet the latency objectives: state them (slo), e.g. ttft_p99_ms=500,tpot_p99_ms=50')
  return { slo, objective }
}

/** name → limit as parseSlo's text; an empty record is an empty text (which parseSlo refuses with its own message). */
const sloText = (r: Readonly<Record<string, number>>): string => Object.entries(r).map(([k, v]) => `${k}=${v}`).join(',')

/** Objectives as name → limit (how runs and sessions store them). */
export const sloRecord = (slo: Slo): Record<string, number> => Object.fromEntries(slo.map((o) => [o.name, o.limitMs]))

/** Objectives as a run or session stores them (name → ms, and the objective resolved), the inverse of resolveObjectives; none stated, nothing. */
export const objectivesRecord = (o: Objectives | undefined): { slo?: Record<string, number>; objective?: string } =>
  o ? { ...(o.slo.length ? { slo: sloRecord(o.slo) } : {}), objective: o.objective.name } : {}

export interface CandidateAssessment {
  readonly feasible: boolean
  readonly violations: readonly Violation[]
  readonly goodput?: { readonly requestsPerSecond: number; readonly met: number }
  /** The objective's value for this candidate (null when it cannot be read). */
  readonly objectiveValue: number | null
}

export interface Assessment {
  readonly objective: string
  readonly slo: Slo
  readonly candidates: readonly CandidateAssessment[]
  /** Candidate indices on the Pareto front of `paretoAxes`. */
  readonly pareto: readonly number[]
  readonly paretoAxes: { readonly throughput: string; readonly latency: string }
  readonly decision?: Decision
}

const num = (x: number) => (Number.isFinite(x) ? x : null)

/** One candidate under the objectives (its metrics must carry goodput where there are objectives; see candidateMetricsOf). */
export function assessCandidate(m: CandidateMetrics, o: Objectives): CandidateAssessment {
  const e = evaluate(m, o.slo)
  return {
    feasible: e.feasible,
    violations: e.violations,
    ...(m.goodput ? { goodput: { requestsPerSecond: m.goodput.requestsPerSecond, met: m.goodput.met } } : {}),
    objectiveValue: num(objectiveValue(m, o.objective)),
  }
}

/**
 * Assesses candidates (their metrics must carry goodput under `o.slo` where it has objectives;
 * see candidateMetricsOf). With `defaultsIndex`, also decides which candidate to choose.
 */
export function assess(metrics: readonly CandidateMetrics[], o: Objectives, defaultsIndex?: number, beatsDefaults?: (index: number) => boolean): Assessment {
  const candidates = metrics.map((m) => assessCandidate(m, o))
  const axes = paretoAxes(o.objective, o.slo)
  const pareto = paretoFront(metrics.map((m, index) => ({ index, throughput: objectiveValue(m, parseObjective(axes.throughput)), latency: m[`${axes.latency.metric}Ms` as 'ttftMs'][axes.latency.stat] })))
  const cands = metrics.map((m, index) => ({ index, metrics: m, feasible: candidates[index]!.feasible }))
  return {
    objective: o.objective.name,
    slo: o.slo,
    candidates,
    pareto,
    paretoAxes: { throughput: axes.throughput, latency: axes.latency.name },
    ...(defaultsIndex === undefined ? {} : { decision: decide(cands, defaultsIndex, o.objective, beatsDefaults) }),
  }
}
