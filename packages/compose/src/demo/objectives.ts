/**
 * The demo decides by latency objectives a chat user would accept, not by the regression gate
 * (issue 25: a 5% gate kept the defaults against a 5x faster decode because TTFT went from 16 to
 * 28 ms, which no chat user notices). The objectives, and why:
 *   - TTFT p99 ≤ 1000 ms: about the longest wait before the first word that still reads as an
 *     immediate answer in a chat window (response-time studies put the limit of "the flow of
 *     thought stays uninterrupted" at about one second);
 *   - TPOT p99 ≤ 200 ms: 5 tokens per second per stream, about 4 words per second, roughly the pace
 *     people read at, so a stream no slower than that never leaves the reader waiting.
 * These are this demo's choice for a chat on this CPU, stated and printed; --slo replaces them.
 *
 * How the sweep's repetitions are judged by them, and the one verdict on that, is the tuner's
 * (repetitionObjectives: each repetition one request; the objectives' rule is the evidence that
 * runVerdict reads). Here: the demo's objectives, its command line, and its JSON.
 */
import type { Combo } from '@kerneltune/core'
import { llamacppEngine, withoutDefaults } from '@kerneltune/engines-llamacpp'
import type { SweepResult } from '@kerneltune/experiment'
import { type CandidateMetrics, type Decision, type Evaluation, type Slo } from '@kerneltune/serving'
import { repetitionObjectives, type RunVerdict } from '@kerneltune/tuner'

export const DEMO_SLO_TEXT = 'ttft_p99_ms=1000,tpot_p99_ms=200'
export const DEMO_SLO_WHY = 'what a chat user would accept: the first word within a second, then at least 5 tokens/s per stream (about reading speed)'

export interface DemoDecision {
  readonly slo: Slo
  readonly combos: readonly Combo[]
  readonly metrics: readonly CandidateMetrics[]
  readonly evaluations: readonly Evaluation[]
  /** The objectives' rule alone: the verdict's evidence. */
  readonly decision: Decision
  /** The one verdict (the tuner's runVerdict over the objectives' evidence): its winner is what runs. */
  readonly verdict: RunVerdict
  readonly winner?: Combo
  readonly recommendedArgv: readonly string[]
}

export async function decideDemo(sweep: SweepResult, slo: Slo, genTokens: number, model: string): Promise<DemoDecision> {
  const arms = [sweep.baseline, ...sweep.combos]
  const judged = repetitionObjectives(arms.map((a, i) => ({ combo: a.combo, reps: a.reps, failed: a.error !== undefined, beatsDefaults: i > 0 && sweep.combos[i - 1]?.comparison.decodeTps?.verdict === 'better' })), slo, genTokens)
  const { verdict } = judged
  const winner = verdict.kind === 'winner' && verdict.index !== null ? arms[verdict.index]!.combo : undefined
  const t = await llamacppEngine().translate(withoutDefaults(winner ?? sweep.baseline.combo), { model })
  return { slo, combos: arms.map((a) => a.combo), ...judged, ...(winner ? { winner } : {}), recommendedArgv: t.ok ? [...t.argv] : [...sweep.recommendedArgv] }
}

/** A combination as the demo prints it: its settings apart from the defaults. */
export const demoLabel = (c: Combo): string => Object.entries(withoutDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'

export function demoDecisionJson(d: DemoDecision): Record<string, unknown> {
  return {
    slo: d.slo,
    objective: 'outputTokensPerSecond',
    why: DEMO_SLO_WHY,
    candidates: d.combos.map((combo, index) => ({ index, combo, feasible: d.evaluations[index]!.feasible, violations: d.evaluations[index]!.violations, ttftMsP99: d.metrics[index]!.ttftMs.p99, tpotMsP99: d.metrics[index]!.tpotMs.p99, decodeTps: d.metrics[index]!.outputTokensPerSecond })),
    // The one verdict; the objectives' rule under it, as its evidence.
    verdict: { ...d.verdict, evidence: { winner: d.decision.winner, defaultsFeasible: d.decision.defaultsFeasible, reason: d.decision.reason } },
  }
}
