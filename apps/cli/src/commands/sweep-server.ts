/**
 * `kerneltune sweep --backend server`: llama.cpp settings (including llama-server's slots and
 * continuous batching) measured as real llama-server processes under concurrent streaming load,
 * with the interleaved design: every arm once per round in a seeded random order, the defaults
 * twice (A/A), compared to the defaults paired by round. See @kerneltune/experiment's
 * runInterleavedSweep (run by the tuner: the sweep is a stored run) and @kerneltune/backends' serverBackend.
 *
 * Each arm's server is launched once and kept running across the rounds (a repetition is warm-up
 * + load on it); the composed backend stops them when the run ends, fails or is cancelled. How
 * many stay up is bounded by memory (@kerneltune/backends' keptServers, stored with the run):
 * beyond it the least recently used is stopped and relaunched on its next visit — the sweep then says so.
 */
import type { Combo, HardwareSpec } from '@kerneltune/core'
import type { Objectives } from '@kerneltune/serving'
import type { Store } from '@kerneltune/store'
import { servingSweepExtension, servingSweepSpace, withoutServingDefaults } from '@kerneltune/engines-llamacpp'
import { minRoundsToDecide, pValueMethod, type InterleavedSweepResult, type PairedComparison, type RoundsTest, type SweepMetric, type SweepResult } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import type { Io } from '../cli/command.ts'
import { fmt, progressBar, table } from '../cli/output.ts'
import { planThroughCatalog, type SweepPlan } from './sweep-plan.ts'
import { sweepAsRun, type SweepDecision, type SweepSession } from './sweep-run.ts'

/** The serving space through the catalog (llama.cpp's rules apply), without the all-defaults combo. */
export function planServingSweep(mode: 'quick' | 'standard', hardware: HardwareSpec, logicalCores: number, override?: Readonly<Record<string, readonly string[]>>): SweepPlan {
  const space = { ...servingSweepSpace(mode, logicalCores), ...override }
  return planThroughCatalog(mode, space, servingSweepExtension(space), withoutServingDefaults, hardware)
}

export interface ServerSweepOptions {
  /** Where the sweep's run is stored. */
  readonly store: Store
  readonly hardware: HardwareSpec
  readonly modelPath: string
  readonly plan: SweepPlan
  readonly design: 'interleaved' | 'sequential'
  readonly concurrency: number
  readonly requests: number
  readonly promptTokens: number
  readonly outputTokens: number
  readonly rounds: number
  /** When the interleaved rounds must end (Date.now() clock): their share of --time-budget. */
  readonly deadline?: number
  /** The result after every round but the last, with the run's id (--out). */
  readonly onRound?: (partial: InterleavedSweepResult & { runId: string }) => void | Promise<void>
  readonly warmups: number
  readonly seed: number
  readonly test?: RoundsTest
  readonly gate: GateMethod
  readonly metric: SweepMetric
  readonly epsilon: number
  readonly margin: number
  /** The model file's size, for the bound on kept servers. */
  readonly modelBytes: number
  /** What the run stores to be resumed, the run resumed, the interrupt. */
  readonly session: SweepSession
  /** --slo/--objective, stored with the run (its summary judges every combination by them). */
  readonly objectives?: Objectives
  /** Start every kept arm's server before round 1 and warm it; default true. False: launch on first visit, warm-ups one at a time. */
  readonly prelaunch?: boolean
}

const label = (c: Combo) => Object.entries(withoutServingDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'

/** How many servers the design launched, and why: every launch is in the design's result with its reason. */
export function launchNote(r: Pick<InterleavedSweepResult, 'launches' | 'rounds'>, arms: number, kept: number): string {
  const all = Object.values(r.launches).flat()
  const count = (reason: string) => all.filter((l) => l.reason === reason).length
  return `server launches: ${all.length} for ${arms} arms over ${r.rounds} rounds (${count('relaunch')} after a server died, ${count('after eviction')} after being stopped to stay within ${kept} kept servers)`
}

/**
 * Stores the plan as a run on the composed `server` backend and measures it through the tuner, as
 * the server's queue would: the servers kept across rounds, their pre-launch and the requests per
 * repetition are stored with the run (options.serving), which the backend reads.
 */
export async function executeServerSweep(io: Io, o: ServerSweepOptions): Promise<(InterleavedSweepResult | SweepResult) & { runId: string; decided: SweepDecision }> {
  const arms = o.plan.candidates.length + 2
  const { serverSweepSettings } = await import('@kerneltune/backends/node')
  const s = serverSweepSettings({ design: o.design, arms, modelBytes: o.modelBytes, hardwareKind: o.hardware.kind, prelaunch: o.prelaunch !== false, warmups: o.warmups, requests: o.requests })
  const kept = s.serving.keepServers ?? 1
  const common = {
    store: o.store, modelPath: o.modelPath, hardware: o.hardware, plan: o.plan, backendName: 'server', serving: s.serving,
    workload: { batch: o.concurrency, promptTokens: o.promptTokens, generatedTokens: o.outputTokens }, warmups: o.warmups, session: o.session, ...(o.objectives ? { objectives: o.objectives } : {}),
  }
  const design = { model: o.modelPath, gate: o.gate, metric: o.metric, epsilon: o.epsilon, margin: o.margin, warmups: o.warmups }
  if (o.design === 'sequential') {
    const bar = progressBar(io, 'sweep (server, sequential)', o.plan.candidates.length + 1)
    const { runId, result, decided } = await sweepAsRun({
      ...common, design: 'sequential', repetitions: 5, settings: design, is: (r): r is SweepResult => !('aa' in r),
      onEvent: (e) => e.type === 'progress' && bar.update(e.done, `${e.done}/${e.total}`),
    })
    bar.done()
    return { ...result, runId, decided }
  }
  if (kept < arms) io.stderr(`memory holds ${kept} of the ${arms} arms' servers at once: the others are stopped and relaunched as the rounds visit them (slower, and launch-to-launch variance enters the comparison)\n`)
  const bar = progressBar(io, 'sweep (server, interleaved)', o.rounds * arms)
  const { runId, result: r, decided } = await sweepAsRun({
    ...common, design: 'interleaved', repetitions: o.rounds,
    settings: {
      ...design,
      // Every arm's server stays up between visits, so later visits need no warm-up; servers the
      // memory bound stops are relaunched on their next visit, which then needs one.
      revisitWarmups: s.revisitWarmups,
      prelaunch: s.prelaunch,
      // The defaults under a key of their own (cont_batching=on writes no flag): the A/A arm gets its own server, as every candidate does.
      aaCombo: { cont_batching: 'on' },
      rounds: o.rounds,
      seed: o.seed,
      ...(o.test ? { test: o.test } : {}),
    },
    ...(o.deadline === undefined ? {} : { deadline: o.deadline }),
    ...(o.onRound ? { onRound: o.onRound } : {}),
    is: (x): x is InterleavedSweepResult => 'aa' in x,
    onEvent: (e) => e.type === 'progress' && bar.update(e.done, `round ${Math.ceil(e.done / arms)}`),
  })
  bar.done()
  const timing = roundTiming(r, s.serving.parallelLaunches)
  return { ...r, runId, decided, notes: [...r.notes, launchNote(r, arms, kept), ...(timing ? [timing] : [])] }
}

/** Where a sweep's time went, in one line: the launches before round 1, round 1 and the later rounds. */
export function roundTiming(r: Pick<InterleavedSweepResult, 'roundSeconds' | 'prepareSeconds'>, parallel?: number): string | undefined {
  const [first, ...later] = r.roundSeconds
  if (first === undefined) return undefined
  const median = later.length ? [...later].sort((a, b) => a - b)[Math.floor((later.length - 1) / 2)]! : undefined
  const pre = r.prepareSeconds === undefined ? 'no pre-launch' : `servers pre-launched ${parallel ?? 1} at a time in ${fmt(r.prepareSeconds, 1)} s`
  return `time: ${pre}; round 1 ${fmt(first, 1)} s${median === undefined ? '' : `, later rounds median ${fmt(median, 1)} s (round 1 / median ${fmt(first / median, 2)}${r.prepareSeconds === undefined ? '' : `, with the pre-launch ${fmt((first + r.prepareSeconds) / median, 2)}`})`}`
}

const TEST_LABEL: Record<RoundsTest, string> = {
  'sign-flip': '20% trimmed mean of the log ratios, sign-flip p-value: exact up to 14 rounds, resampled from 10,000 patterns past them',
  paired: 't-test on the mean log ratio',
  blocked: 'blocked test, noise pooled over the arms',
}

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${fmt(x * 100, 1)}%`)

/** A p-value's method in a table cell, when the rows differ: 'exact 2^8', 'resampled 10,000', 't 7 df'. */
function shortMethod(p: PairedComparison): string {
  if (p.pMethod === 'exact' && p.patterns !== undefined) return `exact 2^${Math.round(Math.log2(p.patterns))}`
  if (p.pMethod === 'resampled') return `resampled ${fmt(p.resamples ?? p.patterns ?? NaN, 0)}`
  return `t ${fmt(p.df, 0)} df`
}

/** The interleaved report; `decision` (the run's verdict and its command line) replaces the design's winner and command line. */
export function renderInterleaved(r: InterleavedSweepResult, decision?: string): string {
  const m = r.metric
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
        label(c.combo),
        c.error ? 0 : c.reps.length,
        c.error ? `failed: ${c.error.slice(0, 60)}` : fmt(c.stats.decodeTps?.trimmedMean ?? NaN),
        pct(p?.improvement),
        p ? `${pct(p.interval.low)}..${pct(p.interval.high)}` : '-',
        p ? (perCell ? `${p.pValue.toPrecision(2)} ${shortMethod(p)}` : p.pValue.toPrecision(2)) : '-',
        p?.verdict ?? '-',
        fmt(c.stats.ttftMs?.trimmedMean ?? NaN),
      ]
    })
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `design: interleaved, ${r.rounds} rounds (every arm once per round, seeded random order ${r.settings.seed}; each arm against the defaults of the same rounds, ${TEST_LABEL[r.settings.test]}), ${fmt(r.seconds, 0)} s\n`
  out += `baseline (llama-server defaults): ${fmt(b.decodeTps?.trimmedMean ?? NaN)} output tok/s under load, TTFT ${fmt(b.ttftMs?.trimmedMean ?? NaN)} ms (trimmed means of ${r.baseline.reps.length} rounds)\n\n`
  out += table(rows, ['combination', 'rounds', 'out tok/s', `${m} vs defaults`, '95% interval', 'p', 'verdict', 'TTFT ms'])
  if (methods.length === 1) out += `p-values: ${methods[0]}\n`
  else if (perCell) out += `p-values: ${methods.join('; ')} (each row says which)\n`
  const aa = r.aa
  // Below the rounds the sign-flip test needs to reach p < 0.05 the rate is 0 by construction: the A/A arm's own reading is the evidence (issue 34 item 12).
  const decisive = r.settings.test !== 'sign-flip' || r.rounds >= minRoundsToDecide()
  const rate = aa.falseWinnerRate === undefined ? '' : decisive ? `; false-winner rate of the rule at this noise (sign-flip resampling): ${fmt(aa.falseWinnerRate * 100, 1)}%` : `; with ${r.rounds} rounds the sign-flip test cannot reach p < 0.05 (it needs ${minRoundsToDecide()}), so there is no false-winner rate to report: what the A/A arm read is the evidence`
  out += `\nA/A check (the defaults against themselves): ${aa.comparison ? `${pct(aa.comparison.improvement)}, p=${aa.comparison.pValue.toPrecision(2)} (${pValueMethod(aa.comparison)}), ${aa.comparison.verdict}` : 'not enough rounds'}${rate}\n`
  if (decision !== undefined) return out + decision
  out += `${r.winner ? `winner: ${label(r.winner.combo)}: ${r.verdict}` : `no winner: ${r.verdict}`}\n`
  out += `recommended: ${r.recommendedArgv.join(' ')}\n`
  return out
}
