/**
 * Latency objectives in runs and tune sessions (issue 25). A serving backend stores every request
 * of each load run with the repetition (RepetitionMetrics.serving); here a combination's requests
 * are pooled into one candidate (serving's candidateMetricsOf) and judged by the objectives with
 * the same assessment as `bench serve` and `sweep` (serving's assess): feasibility, the objectives
 * missed and by how much, goodput, the Pareto front and the decision against the defaults. An
 * infeasible combination never wins.
 */
import type { Combo, RepetitionMetrics, RunCombo } from '@kerneltune/core'
import { assess, assessCandidate, candidateMetricsOf, objectiveValue, rankCandidates, recordLine, resolveObjectives, type Assessment, type CandidateAssessment, type CandidateMetrics, type Objectives, type RecordLine } from '@kerneltune/serving'
import { signFlipTest } from '@kerneltune/stats'

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

/** The objective's value in each repetition (NaN where a repetition carries no requests): per round, in an interleaved run. */
export const repetitionValues = (reps: readonly RepetitionMetrics[], o: Objectives): number[] =>
  reps.map((r) => (r.serving ? objectiveValue(candidateMetricsOf(r.serving.requests, o.slo, r.serving.durationS), o.objective) : NaN))

/**
 * The rule an interleaved design decides by under objectives, for runs and `kerneltune sweep`
 * alike: candidate i beats the defaults when the per-round difference of the objective (in its
 * direction) is positive in a two-sided sign-flip test at p < 0.05, paired by round as the design
 * pairs every arm. `rounds[i][k]` is candidate i's objective value in round k.
 */
export function pairedBeats(rounds: readonly (readonly number[])[], defaults: number, o: Objectives): (i: number) => boolean {
  const base = rounds[defaults] ?? []
  return (i) => {
    const mine = rounds[i] ?? []
    const n = Math.min(mine.length, base.length)
    const d = Array.from({ length: n }, (_, k) => (o.objective.direction === 'max' ? mine[k]! - base[k]! : base[k]! - mine[k]!)).filter(Number.isFinite)
    if (d.length < 2) return false
    const t = signFlipTest(d, (xs) => xs.reduce((a, b) => a + b, 0) / xs.length)
    return t.statistic > 0 && t.pValue < 0.05
  }
}

/**
 * The fewest rounds at which pairedBeats can call a candidate better: its two-sided sign-flip
 * p-value is at least 2/2^n (all signs alike, either way), so with fewer rounds nothing can win by
 * the test, whatever was measured.
 */
export function minRoundsForPairedBeats(alpha = 0.05): number {
  let n = 2
  while (2 / 2 ** n >= alpha) n++
  return n
}

/** How a candidate was compared with the defaults under objectives, in words (paired: interleaved rounds). */
export const objectivesTest = (o: Objectives, paired: boolean): string => paired
  ? `the winner beats the defaults on ${o.objective.name} in a sign-flip test on the per-round differences (two-sided p < 0.05, paired by round)`
  : `not paired by round (sequential): the better pooled ${o.objective.name} decides`

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
  decision: { winner: number | null; defaultsFeasible: boolean | null; reason: string; test: string }
  /** Why nothing could be judged (a backend that measures no requests), when so. */
  note?: string
}

/** `paired`: the run's repetitions are rounds of an interleaved design, and a winner must beat the defaults round by round (pairedBeats). */
export function runObjectives(combos: readonly RunCombo[], o: Objectives, backend: string, paired = false): RunObjectives {
  const judged = combos
    .filter((c) => c.status === 'measured')
    .map((c) => ({ c, m: servedMetrics(c.repetitions, o) }))
    .filter((x): x is { c: RunCombo; m: CandidateMetrics } => x.m !== undefined)
  const base = judged.findIndex((x) => x.c.isBaseline)
  const empty = { objective: o.objective.name, slo: o.slo, candidates: [], pareto: [], paretoAxes: assess([], o).paretoAxes }
  const test = objectivesTest(o, paired)
  if (judged.length === 0) return { ...empty, decision: { winner: null, defaultsFeasible: null, reason: 'nothing was judged', test }, note: `backend ${backend} measured no requests: latency objectives and goodput need a serving backend (server)` }
  const beats = paired && base >= 0 ? pairedBeats(judged.map((x) => repetitionValues(x.c.repetitions, o)), base, o) : undefined
  const a = assess(judged.map((x) => x.m), o, base < 0 ? undefined : base, beats)
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
      test,
    },
  }
}

/** --records: one line per request of every measured combination (candidate = the run's combination index). */
export function runRecordLines(combos: readonly RunCombo[]): RecordLine[] {
  return combos.flatMap((c) => c.repetitions.flatMap((r, rep) => (r.serving?.requests ?? []).map((q) => recordLine(c.index, q, { repetition: rep + 1 }))))
}
