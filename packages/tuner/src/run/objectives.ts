/**
 * Latency objectives in runs and tune sessions (issue 25). A serving backend stores every request
 * of each load run with the repetition (RepetitionMetrics.serving); here a combination's requests
 * are pooled into one candidate (serving's candidateMetricsOf) and judged by the objectives with
 * the same assessment as `bench serve` and `sweep` (serving's assess): feasibility, the objectives
 * missed and by how much, goodput, the Pareto front and the decision against the defaults. An
 * infeasible combination never wins.
 */
import type { Combo, RepetitionMetrics, RunCombo } from '@kerneltune/core'
import { assess, assessCandidate, candidateMetricsOf, rankCandidates, recordLine, resolveObjectives, type Assessment, type CandidateAssessment, type CandidateMetrics, type Objectives, type RecordLine } from '@kerneltune/serving'

/** The objectives a run (or session) stores; undefined when it states none. */
export function storedObjectives(o: { slo?: Record<string, number> | undefined; objective?: string | undefined }): Objectives | undefined {
  return o.slo === undefined && o.objective === undefined ? undefined : resolveObjectives(o)
}

/** A combination's repetitions as one candidate: their requests pooled over their summed durations; undefined when none carries requests. */
export function servedMetrics(reps: readonly RepetitionMetrics[], o: Objectives): CandidateMetrics | undefined {
  const loads = reps.map((r) => r.serving).filter((s) => s !== undefined)
  if (loads.length === 0) return undefined
  return candidateMetricsOf(loads.flatMap((l) => l.requests), o.slo, loads.reduce((a, l) => a + l.durationS, 0))
}

/** One trial (or combination) under the objectives; undefined when its backend measured no requests. */
export function assessRepetitions(reps: readonly RepetitionMetrics[], o: Objectives): CandidateAssessment | undefined {
  const m = servedMetrics(reps, o)
  return m && assessCandidate(m, o)
}

/**
 * Per combination of a run: feasibility, violations, goodput (the sweep's --json shapes), and the
 * run-wide front and decision. The server's RunSummary response (ObjectivesResponse) and the
 * dashboard's run view read this shape.
 */
export interface RunObjectives {
  objective: string
  /** As parsed: [{ name, metric, stat, limitMs }]. */
  slo: Assessment['slo']
  /** `index` is the run's own combination index; measured combinations with requests only. */
  candidates: ({ index: number; combo: Combo } & CandidateAssessment)[]
  /** Combination indices on the Pareto front of `paretoAxes`. */
  pareto: number[]
  paretoAxes: Assessment['paretoAxes']
  /** The best feasible combination by the objective (null: none meets the objectives), and whether the defaults do. */
  decision: { winner: number | null; defaultsFeasible: boolean | null; reason: string }
  /** Why nothing could be judged (a backend that measures no requests), when so. */
  note?: string
}

export function runObjectives(combos: readonly RunCombo[], o: Objectives, backend: string): RunObjectives {
  const judged = combos
    .filter((c) => c.status === 'measured')
    .map((c) => ({ c, m: servedMetrics(c.repetitions, o) }))
    .filter((x): x is { c: RunCombo; m: CandidateMetrics } => x.m !== undefined)
  const base = judged.findIndex((x) => x.c.isBaseline)
  const empty = { objective: o.objective.name, slo: o.slo, candidates: [], pareto: [], paretoAxes: assess([], o).paretoAxes }
  if (judged.length === 0) return { ...empty, decision: { winner: null, defaultsFeasible: null, reason: 'nothing was judged' }, note: `backend ${backend} measured no requests: latency objectives and goodput need a serving backend (server)` }
  const a = assess(judged.map((x) => x.m), o, base < 0 ? undefined : base)
  const at = (i: number) => judged[i]!.c.index
  // Without the defaults measured there is nothing to beat: the best feasible combination is the answer.
  const top = rankCandidates(judged.map((x, index) => ({ index, metrics: x.m, feasible: a.candidates[index]!.feasible })), o.objective)[0]
  const best = a.decision ? a.decision.winner : top?.feasible ? top.index : null
  return {
    objective: a.objective,
    slo: a.slo,
    candidates: judged.map((x, i) => ({ index: x.c.index, combo: x.c.combo, ...a.candidates[i]! })),
    pareto: a.pareto.map(at),
    paretoAxes: a.paretoAxes,
    decision: {
      winner: best === null ? null : at(best),
      defaultsFeasible: a.decision?.defaultsFeasible ?? null,
      // decide() speaks of candidate positions; the run's own indices are what a reader sees.
      reason: a.decision ? a.decision.reason.replace(/candidate (\d+)/g, (_, i: string) => `combination ${at(Number(i))}`) : 'the defaults were not measured: the best feasible combination',
    },
  }
}

/** --records: one line per request of every measured combination (candidate = the run's combination index). */
export function runRecordLines(combos: readonly RunCombo[]): RecordLine[] {
  return combos.flatMap((c) => c.repetitions.flatMap((r, rep) => (r.serving?.requests ?? []).map((q) => recordLine(c.index, q, { repetition: rep + 1 }))))
}
