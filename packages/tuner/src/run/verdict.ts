/**
 * The one verdict of a run (issue 34 item 11). A run can carry several decisions: its latency
 * objectives', its experiment design's (paired by round, with an A/A arm), the quality gate's. The
 * dashboard once headed a run "Winner: #5, +1538.3% throughput" from one of them while the design
 * below it said "keep the defaults": here they become one statement, stored with the summary, that
 * the run view and `kerneltune run show` both print. Who decides: the objectives when the run
 * judged them, else the experiment design (interleaved or sequential) that measured the run, else
 * the quality gate; nothing else picks a winner (issue 36: the executor once swapped in the design's
 * winner after summarizeRun had picked its own). The evidence then limits what
 * may be said. In an interleaved run a winner needs rounds enough for the test to reach
 * significance, even one the objectives pick because the defaults miss them (that, too, was
 * measured in those few rounds), and an A/A arm that differs from the defaults by as much as the
 * winner does withholds the verdict: the defaults stay and the run says why. Every figure
 * carries its unit (@kerneltune/serving's units.ts).
 */
import type { Combo } from '@kerneltune/core'
import type { ExperimentSummary, InterleavedSummary } from './experiment-summary.ts'
import type { RunObjectives } from './objectives.ts'
import { improvementText, signedPercent, unitOf, withUnit } from '@kerneltune/serving'
import { aaContradicts, aaEvidence, designPower, type VerdictAa, type VerdictPower } from './verdict-evidence.ts'

export type { VerdictAa, VerdictPower } from './verdict-evidence.ts'

/**
 * winner: a combination to run. keep-defaults: nothing beat the defaults, or the best candidate
 * failed the gate. withheld: the evidence cannot decide (the A/A arm contradicts it); the defaults
 * stay. review: a person decides (manual gate). ungated: a best candidate no gate judged. none:
 * nothing to recommend (nothing measured, or nothing meets the objectives, the defaults included).
 */
export const VERDICT_KINDS = ['winner', 'keep-defaults', 'withheld', 'review', 'ungated', 'none'] as const
export type VerdictKind = (typeof VERDICT_KINDS)[number]

/** One figure of the verdict, its unit in `text` ('65.3 requests/s', '+1538.3%'). */
export interface VerdictFigure { label: string; text: string; unit: string }

export interface RunVerdict {
  kind: VerdictKind
  /** The combination to run: the winner's index; null keeps the defaults. */
  index: number | null
  /** The combination the verdict speaks of when it is not the one to run (the best candidate, one awaiting review). */
  candidate: number | null
  decidedBy: 'objectives' | 'design' | 'gate' | 'none'
  /** One sentence: the verdict and why. */
  headline: string
  reasons: string[]
  figures: VerdictFigure[]
  /** The best candidate's value in the quantity that decided, with its unit. */
  best: { index: number; quantity: string; value: number; unit: string } | null
  /** Interleaved runs: whether the deciding test can reach significance, and what the A/A arm shows. */
  power?: VerdictPower
  aa?: VerdictAa
  /**
   * The command line to run, set by whoever can translate (the executor, with the run's engine):
   * the winner's, or the defaults' when they stay because nothing beat them; null when the verdict
   * is withheld or there is nothing to recommend. The sweep and `run show` print this one.
   */
  recommendedArgv?: string[] | null
}

/** What the verdict reads of a run's summary (summary.ts's RunSummary), with the design's when a design measured the run. */
export interface VerdictInput {
  metric: string
  simulated: boolean
  counts: { measured: number }
  baseline: { index: number; value: number } | null
  winner: { index: number; value: number; improvement: number | null } | null
  gate: { method: string; passed: boolean; reasons: readonly string[] } | null
  objectives?: RunObjectives | undefined
  experiment?: ExperimentSummary | InterleavedSummary | undefined
}

export interface VerdictOptions {
  /** The quality gate's verdict on the summary's winner (a run stores it per combination). */
  winnerGate?: { passed: boolean; reasons: readonly string[] } | null | undefined
  alpha?: number
  /** The A/A arm's band around 0 (verdict-evidence.ts rule 3); default AA_BAND. */
  band?: number
}

const interleaved = (e: VerdictInput['experiment']): e is InterleavedSummary => e?.design === 'interleaved'

export function runVerdict(s: VerdictInput, o: VerdictOptions = {}): RunVerdict {
  const alpha = o.alpha ?? 0.05
  const e = interleaved(s.experiment) ? s.experiment : undefined
  // The design that measured the run, either kind: its rule picks the candidate when no objectives decide.
  const d = s.experiment
  const obj = s.objectives && !s.objectives.note ? s.objectives : undefined
  const quantity = obj ? obj.objective : d ? d.metric : s.metric
  const unit = unitOf(quantity)
  const valueOf = (index: number | undefined | null): number | null => {
    if (index === undefined || index === null) return null
    if (obj) return obj.candidates.find((c) => c.index === index)?.objectiveValue ?? null
    // A design's winner carries its value on the design's metric; the baseline's is on the run's, which may be another.
    if (d?.winner?.index === index) {
      if (typeof d.winner.value === 'number') return d.winner.value
      // Runs stored before issue 36 carry the design's winner, with its value, as the summary's.
      if (s.winner?.index === index) return s.winner.value
    }
    if (d && d.metric !== s.metric) return null
    if (s.winner?.index === index) return s.winner.value
    return s.baseline?.index === index ? s.baseline.value : null
  }
  const defaultsValue = valueOf(s.baseline?.index)
  // The candidate the deciding rule picks (objectives, design or the best measured), before the evidence weighs in.
  const pick = obj ? obj.decision.winner : d ? d.winner?.index ?? null : s.winner && s.winner.index !== s.baseline?.index ? s.winner.index : null
  const bestIndex = pick ?? (obj ? bestFeasible(obj, s.baseline?.index) : e ? bestPaired(e) : d ? null : s.winner?.index ?? null)
  const bestValue = valueOf(bestIndex)
  const best = bestIndex !== null && bestValue !== null ? { index: bestIndex, quantity, value: bestValue, unit } : null
  const isDefaults = bestIndex !== null && bestIndex === s.baseline?.index
  const gain = bestIndex === null || isDefaults ? null : obj ? relative(bestValue, defaultsValue, unit === 'ms') : e ? e.paired[String(bestIndex)]?.improvement ?? null : d ? d.winner?.improvement ?? null : s.winner?.improvement ?? null
  const paired = e && bestIndex !== null ? e.paired[String(bestIndex)] ?? null : null
  const figures: VerdictFigure[] = []
  if (best) figures.push({ label: `${quantity} of #${best.index}${isDefaults ? ' (the defaults)' : ''}`, text: withUnit(best.value, unit), unit })
  if (defaultsValue !== null && !isDefaults) figures.push({ label: `${quantity} of the defaults`, text: withUnit(defaultsValue, unit), unit })
  if (gain !== null && Number.isFinite(gain)) figures.push({ label: `#${bestIndex} against the defaults on ${quantity}`, text: improvementText(gain, quantity), unit: '%' })
  if (e && paired && (obj || !Number.isFinite(gain ?? NaN))) figures.push({ label: `#${bestIndex} against the defaults on ${e.metric}, paired by round`, text: improvementText(paired.improvement, e.metric), unit: '%' })
  const interval = e && paired && Number.isFinite(paired.interval.low) && Number.isFinite(paired.interval.high) ? `${signedPercent(paired.interval.low)} to ${signedPercent(paired.interval.high)}` : null
  if (e && interval) figures.push({ label: `95% interval of the ratio of #${bestIndex} to the defaults on ${e.metric}`, text: interval, unit: '%' })
  // The figures in one phrase: 'goodput 65.3 requests/s against 3.98 requests/s for the defaults (+1538.3%)'.
  const said = [
    `${quantity}${best ? ` ${withUnit(best.value, unit)}` : ''}${defaultsValue !== null && best ? ` against ${withUnit(defaultsValue, unit)} for the defaults` : ''}${gain !== null && Number.isFinite(gain) ? ` (${improvementText(gain, quantity)})` : ''}`,
    e && interval ? `95% interval of the ratio to the defaults on ${e.metric}: ${interval}` : '',
    // A prediction repeated has no spread: its figures are the model's, and have no interval.
    s.simulated ? 'predicted (nothing was run, so no interval)' : '',
  ].filter(Boolean).join('; ')
  const power = e ? designPower(e, alpha, obj && obj.decision.defaultsFeasible !== false ? obj.objective : undefined) : undefined
  const aa = e ? aaEvidence(e, alpha, o.band) : undefined
  const out = (kind: VerdictKind, index: number | null, headline: string, reasons: string[], decidedBy: RunVerdict['decidedBy']): RunVerdict => ({
    kind, index, candidate: index === null ? bestIndex : null, decidedBy, headline, reasons: reasons.filter(Boolean), figures, best, ...(power ? { power } : {}), ...(aa ? { aa } : {}),
  })
  const decidedBy = obj ? 'objectives' : d ? 'design' : s.gate ? 'gate' : 'none'
  // The A/A arm's full reading goes with the design's evidence (`aa.text`, printed there), not into the reasons again.

  if (s.counts.measured === 0 || (!s.baseline && !s.winner && !obj)) return out('none', null, 'No verdict: nothing was measured.', [], 'none')
  if (obj && pick === null && obj.decision.defaultsFeasible === false) return out('none', null, 'No verdict: nothing meets the objectives, the defaults included.', [obj.decision.reason], 'objectives')

  // The A/A arm contradicts the pick, or (no pick) shows that nothing measured rose above the noise.
  if (e && aa && (pick !== null ? aaContradicts(aa, e, pick, gain) : aa.declaredWinner || aa.noiseDominates || aa.outsideBand)) {
    const read = `the A/A arm (the defaults against themselves) read ${improvementText(aa.improvement, e.metric)} on ${e.metric}`
    const overEffect = aa.noiseDominates || (pick !== null && aaContradicts({ ...aa, declaredWinner: false, outsideBand: false }, e, pick, gain))
    const why = aa.declaredWinner
      ? `the A/A arm (the defaults against themselves) was called better than the defaults (${improvementText(aa.improvement, e.metric)} on ${e.metric})`
      : overEffect
        ? `${read}, ${aa.noiseDominates ? 'larger than every difference measured' : `as large as #${pick}'s difference`}: the noise is larger than the effect`
        : `${read}, its 95% interval wholly outside ±${(aa.band * 100).toFixed(0)}%: the same settings differed measurably from themselves`
    const picked = pick === null ? '' : obj ? `the objectives alone would pick #${pick} (${obj.decision.reason})` : `the design alone would pick #${pick}`
    return out('withheld', null, `No verdict, the defaults stay: ${why}${power?.text ? `; ${power.text}` : ''}; the machine was too noisy to decide.`, [picked, 'measure more rounds or on a quieter machine'], decidedBy)
  }

  // A pick the paired rounds could not have confirmed (too few for the test to reach p < alpha):
  // under objectives it rests on feasibility alone, measured in as few rounds. Not a decision yet.
  if (e && power && !power.canDecide && pick !== null) {
    const picked = obj ? `the objectives alone would pick #${pick} (${obj.decision.reason}); ${said}` : `the design alone would pick #${pick}; ${said}`
    return out('withheld', null, `No verdict, the defaults stay: ${power.text}, so the paired rounds cannot confirm #${pick}.`, [picked, 'measure more rounds (a larger time budget) or on a quieter machine'], decidedBy)
  }

  if (obj) {
    if (pick === null) return out('keep-defaults', null, `Keep the defaults: ${power?.text || obj.decision.reason}.`, [obj.decision.reason], 'objectives')
    return gated(out, s, o, pick, `#${pick} meets the objectives ${obj.decision.defaultsFeasible === false ? 'and the defaults do not' : obj.decision.defaultsFeasible === null ? '(no defaults were measured to compare it with)' : 'and beats the defaults'}; ${said}`, [obj.decision.reason], !e)
  }
  if (e) {
    if (pick === null) {
      const found = paired && bestIndex !== null ? `no combination is significantly better than the defaults on ${e.metric} (best: #${bestIndex}, ${improvementText(paired.improvement, e.metric)}, p = ${paired.pValue?.toPrecision(2) ?? '—'})` : `no combination could be compared with the defaults on ${e.metric}`
      return out('keep-defaults', null, `Keep the defaults: ${power?.text || found}.`, [found], 'design')
    }
    return out('winner', pick, `Winner: #${pick}, ${said}.`, [e.verdict], 'design')
  }
  // A sequential design: its rule (significantly better than the defaults, then the gate) picked or did not.
  if (d && pick === null) {
    const found = `no combination is significantly better than the defaults on ${d.metric}`
    return out('keep-defaults', null, `Keep the defaults: ${found}.`, [d.verdict], 'design')
  }
  if (pick === null) {
    return s.winner ? out('keep-defaults', null, `Keep the defaults: the defaults (#${s.winner.index}) are best; no candidate beat them.`, [], decidedBy) : out('none', null, 'No verdict: no combination was measured.', [], 'none')
  }
  return gated(out, s, o, pick, said, [], true)
}

/** A pick the quality gate judges (sequential runs): it passes, fails (the defaults stay), awaits a person, or was not judged. */
function gated(out: (kind: VerdictKind, index: number | null, headline: string, reasons: string[], decidedBy: RunVerdict['decidedBy']) => RunVerdict, s: VerdictInput, o: VerdictOptions, pick: number, what: string, reasons: string[], byGate: boolean): RunVerdict {
  const decidedBy = s.objectives && !s.objectives.note ? 'objectives' : 'gate'
  if (!byGate) return out('winner', pick, `Winner: #${pick}: ${what}.`, reasons, decidedBy)
  if (s.gate?.method === 'manual') return out('review', null, `Best candidate #${pick} awaits review (manual gate): the defaults are kept until you apply it; ${what}.`, [...reasons, ...s.gate.reasons], decidedBy)
  const g = o.winnerGate ?? (s.gate ? { passed: s.gate.passed, reasons: s.gate.reasons } : null)
  if (!g) return out('ungated', null, `Best candidate #${pick}: no quality gate decided on it; ${what}.`, reasons, decidedBy)
  if (!g.passed) return out('keep-defaults', null, `Keep the defaults: best candidate #${pick} failed the quality gate; ${what}.`, [...reasons, ...g.reasons], decidedBy)
  return out('winner', pick, `Winner: #${pick}: ${what}.`, reasons, decidedBy)
}

/** (mine − defaults) / |defaults|, signed so that positive is better; null without both. */
function relative(mine: number | null, defaults: number | null, lowerIsBetter: boolean): number | null {
  if (mine === null || defaults === null || defaults === 0 || !Number.isFinite(mine) || !Number.isFinite(defaults)) return null
  return ((lowerIsBetter ? -1 : 1) * (mine - defaults)) / Math.abs(defaults)
}

/** The best feasible candidate other than the defaults, by the objective (the candidates are judged in order of index). */
function bestFeasible(obj: NonNullable<VerdictInput['objectives']>, defaults: number | undefined): number | null {
  const lower = unitOf(obj.objective) === 'ms'
  const feasible = obj.candidates.filter((c) => c.feasible && c.index !== defaults && c.objectiveValue !== null)
  feasible.sort((a, b) => (lower ? a.objectiveValue! - b.objectiveValue! : b.objectiveValue! - a.objectiveValue!))
  return feasible[0]?.index ?? null
}

/** The candidate with the largest paired improvement on the design's metric. */
function bestPaired(e: InterleavedSummary): number | null {
  const ranked = Object.entries(e.paired).filter(([, p]) => p && Number.isFinite(p.improvement)).sort(([, a], [, b]) => b!.improvement - a!.improvement)
  return ranked[0] ? Number(ranked[0][0]) : null
}

/** The quality gate's verdict on the combination the deciding rule picks (objectives, design or best measured); null when none is picked or gated. */
export function verdictGate(s: VerdictInput, gates: ReadonlyMap<number, { passed: boolean; reasons: readonly string[] }>): { passed: boolean; reasons: readonly string[] } | null {
  const obj = s.objectives && !s.objectives.note ? s.objectives : undefined
  const pick = obj ? obj.decision.winner ?? (obj.decision.defaultsFeasible ? s.baseline?.index ?? null : null) : s.experiment ? s.experiment.winner?.index ?? null : s.winner?.index ?? null
  return pick === null ? null : gates.get(pick) ?? null
}

/**
 * The verdict with its command line: the winner's, or the defaults' when they stay because nothing
 * beat them; null when the verdict is withheld (the run could not decide, so it recommends
 * nothing), nothing was measured, or the engine cannot translate the combination.
 */
export async function withRecommendedArgv(v: RunVerdict, combos: readonly { index: number; combo: Combo; isBaseline: boolean }[], argvOf: (combo: Combo) => Promise<string[] | null>): Promise<RunVerdict> {
  if (v.kind === 'withheld' || v.kind === 'none') return { ...v, recommendedArgv: null }
  const c = combos.find((x) => (v.index === null ? x.isBaseline : x.index === v.index))
  return { ...v, recommendedArgv: c ? await argvOf(c.combo) : null }
}
