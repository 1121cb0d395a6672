/**
 * The sweep's human reports (moved out of the CLI, issue 36): every combination against the
 * defaults, the interleaved design's paired comparison with how each p-value was computed and
 * the A/A check, ONNX Runtime's table, where the rounds' time went, and the run's one verdict.
 * Tables and numbers are drawn by the caller's `SweepText` (the CLI's table and fmt).
 */
import { formatCommandLine, type Combo } from '@kerneltune/core'
import { minRoundsToDecide, pValueMethod, type InterleavedSweepResult, type PairedComparison, type RoundsTest, type SweepResult } from '@kerneltune/experiment'
import { onnxComboLabel } from '@kerneltune/engines-onnx'
import type { RunVerdict } from '@kerneltune/tuner'
import { comboLabel as label, type SweepPlan } from './plan.ts'

/** How the caller draws text: aligned tables and numbers. */
export interface SweepText {
  table(rows: readonly (readonly unknown[])[], header?: readonly string[]): string
  fmt(n: number, digits?: number): string
}

/**
 * The run's one verdict as the sweep prints it (issue 36: the sweep once printed the design's winner
 * beside a stored verdict that kept the defaults): the winner is the verdict's combination, the
 * command line the verdict's (null when withheld), the design's own wording kept as designVerdict.
 */
export interface SweepDecision {
  readonly verdict: RunVerdict
  /** The design's entry for the verdict's winner; undefined unless the verdict names one. */
  readonly winner: InterleavedSweepResult['combos'][number] | SweepResult['combos'][number] | undefined
  readonly recommendedArgv: readonly string[] | null
}

export const isInterleaved = (r: InterleavedSweepResult | SweepResult): r is InterleavedSweepResult => (r as InterleavedSweepResult).design === 'interleaved'

/** The --json fields every sweep shares: the verdict's winner and command line, and the design's wording beside. */
export const decisionJson = (r: { readonly verdict: string }, d: SweepDecision): { winner: SweepDecision['winner'] | null; verdict: RunVerdict; designVerdict: string; recommendedArgv: readonly string[] | null } => ({ winner: d.winner ?? null, verdict: d.verdict, designVerdict: r.verdict, recommendedArgv: d.recommendedArgv })

/** The verdict's lines of the human report: what it decided and the command line it recommends. */
export function decisionText(d: SweepDecision): string {
  let out = `verdict: ${d.verdict.headline}\n`
  for (const why of d.verdict.reasons) out += `  why: ${why}\n`
  return out + (d.recommendedArgv ? `recommended: ${formatCommandLine({ argv: d.recommendedArgv })}\n` : 'recommended: nothing: the verdict is withheld (the defaults stay)\n')
}

const pctOf = (t: SweepText) => (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${t.fmt(x * 100, 1)}%`)

/** The sequential report: every combination against the defaults, then `decision` (the run's verdict), else the design's winner. */
export function renderSweep(t: SweepText, r: SweepResult, decision?: string): string {
  const m = r.metric
  const pct = pctOf(t)
  const rows = [...r.combos]
    .sort((a, b) => (b.stats[m]?.trimmedMean ?? -Infinity) - (a.stats[m]?.trimmedMean ?? -Infinity))
    .map((c) => {
      const cmp = c.comparison[m]
      return [
        label(c.combo), c.error ? 0 : c.reps.length, c.error ? `failed: ${c.error.slice(0, 60)}` : t.fmt(c.stats.decodeTps?.trimmedMean ?? NaN),
        pct(c.comparison.decodeTps?.improvement), cmp ? cmp.welch.pValue.toPrecision(2) : '-', cmp ? t.fmt(cmp.cohensD, 2) : '-',
        t.fmt(c.stats.prefillTps?.trimmedMean ?? NaN), pct(c.comparison.prefillTps?.improvement), c.gate ? (c.gate.passed ? 'pass' : c.gate.status) : '-',
      ]
    })
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `baseline (the engine's defaults): decode ${t.fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s, prefill ${t.fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (trimmed means of ${r.baseline.reps.length} reps)\n\n`
  out += t.table(rows, ['combination', 'reps', 'decode tok/s', 'vs default', `p (${m})`, 'd', 'prefill tok/s', 'vs default', `gate (${r.gate.method})`])
  if (decision !== undefined) return `${out}\n${decision}`
  out += `\n${r.winner ? `winner: ${label(r.winner.combo)}: ${r.verdict}` : `no winner: ${r.verdict}`}\n`
  return out + `recommended: ${formatCommandLine({ argv: r.recommendedArgv })}\n`
}

/** Where a sweep's time went, in one line: the launches before round 1, round 1 and the later rounds. */
export function roundTiming(t: SweepText, r: Pick<InterleavedSweepResult, 'roundSeconds' | 'prepareSeconds'>, parallel?: number): string | undefined {
  const [first, ...later] = r.roundSeconds
  if (first === undefined) return undefined
  const median = later.length ? [...later].sort((a, b) => a - b)[Math.floor((later.length - 1) / 2)]! : undefined
  const pre = r.prepareSeconds === undefined ? 'no pre-launch' : `servers pre-launched ${parallel ?? 1} at a time in ${t.fmt(r.prepareSeconds, 1)} s`
  return `time: ${pre}; round 1 ${t.fmt(first, 1)} s${median === undefined ? '' : `, later rounds median ${t.fmt(median, 1)} s (round 1 / median ${t.fmt(first / median, 2)}${r.prepareSeconds === undefined ? '' : `, with the pre-launch ${t.fmt((first + r.prepareSeconds) / median, 2)}`})`}`
}

/** How many servers the design launched, and why: every launch is in the design's result with its reason. */
export function launchNote(r: Pick<InterleavedSweepResult, 'launches' | 'rounds'>, arms: number, kept: number, program = 'server'): string {
  const all = Object.values(r.launches).flat()
  const count = (reason: string) => all.filter((l) => l.reason === reason).length
  return `${program} launches: ${all.length} for ${arms} arms over ${r.rounds} rounds (${count('relaunch')} after a server died, ${count('after eviction')} relaunched after being stopped to stay within ${kept} kept servers)`
}

const TEST_LABEL: Record<RoundsTest, string> = {
  'sign-flip': '20% trimmed mean of the log ratios, sign-flip p-value: exact up to 14 rounds, resampled from 10,000 patterns past them',
  paired: 't-test on the mean log ratio',
  blocked: 'blocked test, noise pooled over the arms',
}

/** A p-value's method in a table cell, when the rows differ: 'exact 2^8', 'resampled 10,000', 't 7 df'. */
function shortMethod(t: SweepText, p: PairedComparison): string {
  if (p.pMethod === 'exact' && p.patterns !== undefined) return `exact 2^${Math.round(Math.log2(p.patterns))}`
  if (p.pMethod === 'resampled') return `resampled ${t.fmt(p.resamples ?? p.patterns ?? NaN, 0)}`
  return `t ${t.fmt(p.df, 0)} df`
}

/** The interleaved report; `decision` (the run's verdict and its command line) replaces the design's winner and command line. */
export function renderInterleaved(t: SweepText, r: InterleavedSweepResult, decision?: string): string {
  const m = r.metric
  const pct = pctOf(t)
  // Every printed p-value says how it was computed (issue 23 item 11): once under the table when
  // all rows share a method (the usual case: every arm measured in every round), else per cell.
  const compared = r.combos.map((c) => c.paired[m]).filter((p): p is PairedComparison => p !== undefined)
  const methods = [...new Set(compared.map(pValueMethod))]
  const perCell = methods.length > 1
  const rows = [...r.combos]
    .sort((a, b) => (b.paired[m]?.improvement ?? -Infinity) - (a.paired[m]?.improvement ?? -Infinity))
    .map((c) => {
      const p = c.paired[m]
      return [
        label(c.combo), c.error ? 0 : c.reps.length, c.error ? `failed: ${c.error.slice(0, 60)}` : t.fmt(c.stats.decodeTps?.trimmedMean ?? NaN), pct(p?.improvement),
        p ? `${pct(p.interval.low)}..${pct(p.interval.high)}` : '-', p ? (perCell ? `${p.pValue.toPrecision(2)} ${shortMethod(t, p)}` : p.pValue.toPrecision(2)) : '-',
        p?.verdict ?? '-', t.fmt(c.stats.ttftMs?.trimmedMean ?? NaN),
      ]
    })
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `design: interleaved, ${r.rounds} rounds (every arm once per round, seeded random order ${r.settings.seed}; each arm against the defaults of the same rounds, ${TEST_LABEL[r.settings.test]}), ${t.fmt(r.seconds, 0)} s\n`
  out += `baseline (the engine's defaults): ${t.fmt(b.decodeTps?.trimmedMean ?? NaN)} output tok/s under load, TTFT ${t.fmt(b.ttftMs?.trimmedMean ?? NaN)} ms (trimmed means of ${r.baseline.reps.length} rounds)\n\n`
  out += t.table(rows, ['combination', 'rounds', 'out tok/s', `${m} vs defaults`, '95% interval', 'p', 'verdict', 'TTFT ms'])
  if (methods.length === 1) out += `p-values: ${methods[0]}\n`
  else if (perCell) out += `p-values: ${methods.join('; ')} (each row says which)\n`
  const aa = r.aa
  // Below the rounds the sign-flip test needs to reach p < 0.05 the rate is 0 by construction: the A/A arm's own reading is the evidence (issue 34 item 12).
  const decisive = r.settings.test !== 'sign-flip' || r.rounds >= minRoundsToDecide()
  const rate = aa.falseWinnerRate === undefined ? '' : decisive ? `; false-winner rate of the rule at this noise (sign-flip resampling): ${t.fmt(aa.falseWinnerRate * 100, 1)}%` : `; with ${r.rounds} rounds the sign-flip test cannot reach p < 0.05 (it needs ${minRoundsToDecide()}), so there is no false-winner rate to report: what the A/A arm read is the evidence`
  out += `\nA/A check (the defaults against themselves): ${aa.comparison ? `${pct(aa.comparison.improvement)}, p=${aa.comparison.pValue.toPrecision(2)} (${pValueMethod(aa.comparison)}), ${aa.comparison.verdict}` : 'not enough rounds'}${rate}\n`
  if (decision !== undefined) return out + decision
  out += `${r.winner ? `winner: ${label(r.winner.combo)}: ${r.verdict}` : `no winner: ${r.verdict}`}\n`
  return out + `recommended: ${r.recommendedArgv.join(' ')}\n`
}

/** Every combination against ORT's defaults, on the paired (interleaved) or unpaired (sequential) comparison. */
export function renderOnnx(t: SweepText, r: InterleavedSweepResult | SweepResult, metric: string): string {
  const pct = pctOf(t)
  const cmp = (c: (typeof r.combos)[number], k: 'decodeTps' | 'prefillTps') => ('paired' in c ? c.paired[k] : undefined) ?? c.comparison[k]
  const pOf = (c: (typeof r.combos)[number]) => {
    const x = cmp(c, metric as 'decodeTps')
    return x === undefined ? '-' : ('welch' in x ? x.welch.pValue : x.pValue).toPrecision(2)
  }
  const rows = [...r.combos]
    .sort((a, b) => (b.stats.decodeTps?.trimmedMean ?? -Infinity) - (a.stats.decodeTps?.trimmedMean ?? -Infinity))
    .map((c) => [onnxComboLabel(c.combo), c.error ? 0 : c.reps.length, c.error ? `failed: ${c.error.slice(0, 60)}` : t.fmt(c.stats.decodeTps?.trimmedMean ?? NaN), pct(cmp(c, 'decodeTps')?.improvement), t.fmt(c.stats.prefillTps?.trimmedMean ?? NaN), pct(cmp(c, 'prefillTps')?.improvement), pOf(c)])
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `ORT defaults: decode ${t.fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s, prefill ${t.fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (trimmed means of ${r.baseline.reps.length} ${isInterleaved(r) ? 'rounds' : 'reps'})\n\n`
  out += t.table(rows, ['combination', isInterleaved(r) ? 'rounds' : 'reps', 'decode tok/s', 'vs default', 'prefill tok/s', 'vs default', `p (${metric})`])
  return `${out}\n`
}

/** --plan: what the sweep would measure, and nothing launched or measured (exit 0). */
export function planOutcome(t: SweepText, engine: string, plan: SweepPlan): { code: 0; json: Record<string, unknown>; text: string } {
  const kv = (c: Combo) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'
  const json = { ok: true, engine, measured: false, mode: plan.mode, space: plan.space, candidates: plan.candidates.map((c) => ({ combo: c.combo, hash: c.hash })), pruned: plan.pruned, catalog: plan.catalog }
  let text = `plan (${engine}, ${plan.mode} mode): ${plan.candidates.length} combinations against the defaults, ${plan.pruned.length} removed by the rules; nothing launched or measured\n\n`
  text += t.table(plan.candidates.map((c) => [kv(c.combo)]), ['combination'])
  for (const p of plan.pruned) text += `removed: ${kv(p.combo)} (${p.rule})\n`
  return { code: 0, json, text }
}
