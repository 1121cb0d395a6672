/**
 * Latency objectives over an in-process sweep (moved out of the CLI's demo in issue 36): such a
 * sweep measures one request per repetition, so each repetition is one request, its TTFT and its
 * TPOT as 1000 / its decode rate. A candidate must meet the objectives and beat the defaults (the
 * sweep's own significance test, passed in); when the defaults miss them, the best candidate that
 * meets them wins. That rule's decision is evidence: the run's one verdict function (runVerdict,
 * what every run stores and `run show` prints) reads it and says what to run.
 */
import type { Combo } from '@kerneltune/core'
import { decide, evaluate, parseObjective, summarize, type CandidateMetrics, type Decision, type Evaluation, type Slo } from '@kerneltune/serving'
import type { RunObjectives } from './objectives.ts'
import { runVerdict, type RunVerdict } from './verdict.ts'

/** One repetition of an in-process measurement: its time to first token and decode rate. */
export interface InProcessRep { readonly ttftMs?: number | undefined; readonly decodeTps?: number | undefined }

/** One arm of the sweep: the defaults first, then each candidate. */
export interface InProcessArm {
  readonly combo: Combo
  readonly reps: readonly InProcessRep[]
  readonly failed: boolean
  /** The sweep's significance test: decode significantly faster than the defaults (ignored for the defaults). */
  readonly beatsDefaults: boolean
}

export interface RepetitionObjectives {
  readonly metrics: readonly CandidateMetrics[]
  readonly evaluations: readonly Evaluation[]
  /** The objectives' rule alone: the verdict's evidence. */
  readonly decision: Decision
  /** The one verdict over that evidence; its index (0 the defaults) is the arm to run, null keeps the defaults. */
  readonly verdict: RunVerdict
}

/** One candidate's repetitions as request figures: TTFT, TPOT = 1000 / decode tok/s, E2E over the generated tokens. */
export function repsAsRequests(reps: readonly InProcessRep[], genTokens: number, failed: boolean): CandidateMetrics {
  const ttft = reps.map((r) => r.ttftMs ?? Number.NaN).filter(Number.isFinite)
  const tpot = reps.map((r) => (r.decodeTps && r.decodeTps > 0 ? 1000 / r.decodeTps : Number.NaN)).filter(Number.isFinite)
  const e2e = reps.map((r) => (r.ttftMs ?? Number.NaN) + (genTokens - 1) * (r.decodeTps && r.decodeTps > 0 ? 1000 / r.decodeTps : Number.NaN)).filter(Number.isFinite)
  const decode = reps.map((r) => r.decodeTps ?? Number.NaN).filter(Number.isFinite)
  const meanE2e = e2e.reduce((a, b) => a + b, 0) / Math.max(1, e2e.length)
  return {
    requests: { completed: failed ? 0 : reps.length, failed: failed ? 1 : 0 },
    ttftMs: summarize(ttft),
    tpotMs: summarize(tpot),
    itlMs: summarize(tpot),
    e2eMs: summarize(e2e),
    // One stream: requests/s and tokens/s of that stream.
    requestThroughput: e2e.length ? 1000 / meanE2e : Number.NaN,
    outputTokensPerSecond: decode.length ? decode.reduce((a, b) => a + b, 0) / decode.length : Number.NaN,
  }
}

/** The arms judged by the objectives (the fastest decode among those that meet them), and the run's one verdict on it. */
export function repetitionObjectives(arms: readonly InProcessArm[], slo: Slo, genTokens: number): RepetitionObjectives {
  const metrics = arms.map((a) => repsAsRequests(a.reps, genTokens, a.failed))
  const evaluations = metrics.map((m) => evaluate(m, slo))
  const decision = decide(metrics.map((m, index) => ({ index, metrics: m, feasible: evaluations[index]!.feasible })), 0, parseObjective('outputTokensPerSecond'), (i) => arms[i]?.beatsDefaults === true)
  const value = (i: number) => (Number.isFinite(metrics[i]!.outputTokensPerSecond) ? metrics[i]!.outputTokensPerSecond : null)
  const objectives: RunObjectives = {
    objective: 'outputTokensPerSecond',
    slo,
    candidates: arms.map((a, index) => ({ index, combo: a.combo, feasible: evaluations[index]!.feasible, violations: evaluations[index]!.violations, objectiveValue: value(index) })),
    pareto: [],
    paretoAxes: { throughput: 'outputTokensPerSecond', latency: 'ttft_p99_ms' },
    decision: { winner: decision.winner, defaultsFeasible: decision.defaultsFeasible, reason: decision.reason, test: 'the sweep\'s Welch/Yuen test on decode tok/s against the defaults' },
  }
  const base = value(0)
  // The objectives decide in place of a regression gate (issue 25): their rule, significance test
  // included, is the only gate its pick passes.
  const gate = { method: 'objectives (in place of a regression gate)', passed: true, reasons: [] }
  const measured = metrics.filter((m) => m.requests.completed > 0).length
  const verdict = runVerdict({ metric: 'decodeTps', simulated: false, counts: { measured }, baseline: base === null ? null : { index: 0, value: base }, winner: null, gate, objectives })
  return { metrics, evaluations, decision, verdict }
}
