/**
 * `kerneltune sweep --backend server`: llama.cpp settings (including llama-server's slots and
 * continuous batching) measured as real llama-server processes under concurrent streaming load,
 * with the interleaved design: every arm once per round in a seeded random order, the defaults
 * twice (A/A), compared to the defaults paired by round. See @kerneltune/experiment's
 * runInterleavedSweep (run by the tuner: the sweep is a stored run) and @kerneltune/backends' serverBackend.
 *
 * Each arm's llama-server is launched once and kept running across the rounds (a repetition is
 * warm-up + load on it); servers are stopped when the sweep ends, fails or is cancelled. Only one
 * is ever under load. How many stay up is bounded by memory (keptServers): beyond it the least
 * recently used is stopped and relaunched on its next visit, which with a random order per round
 * means most visits relaunch — the sweep then says so.
 */
import { availableParallelism, freemem } from 'node:os'
import type { Combo, HardwareSpec } from '@kerneltune/core'
import type { Objectives } from '@kerneltune/serving'
import type { Store } from '@kerneltune/store'
import { serverBackend, type ServerBackend, type ServerBackendOptions } from '@kerneltune/backends/node'
import { servingSweepExtension, servingSweepSpace, withoutServingDefaults } from '@kerneltune/engines-llamacpp'
import { minRoundsToDecide, pValueMethod, type InterleavedSweepResult, type PairedComparison, type RoundsTest, type SweepMetric, type SweepResult } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import type { Io } from '../cli/command.ts'
import { fmt, progressBar, table } from '../cli/output.ts'
import { serverTarget } from './bench/serve-target.ts'
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
  /** Receives every load run with its requests (latency objectives, sweep-objectives.ts). */
  readonly onSession?: ServerBackendOptions['onSession']
  /** What the run stores to be resumed, the run resumed, the interrupt. */
  readonly session: SweepSession
  /** --slo/--objective, stored with the run (its summary judges every combination by them). */
  readonly objectives?: Objectives
  /** Start every kept arm's server before round 1 (parallelLaunches at a time) and warm it; default true. False: launch on first visit, warm-ups one at a time. */
  readonly prelaunch?: boolean
}

/**
 * Launches at once before round 1. On a CPU one: every llama-server computes on the same cores
 * (the defaults' threads fill all of them), and on a 2-core machine two servers launching or
 * warming together each took 2-4 times as long as alone, spinning on each other's barriers
 * (bench/results/launch-cost.json, issue 35), so overlapping them gains nothing there. On a GPU as
 * many as there are host cores, within the servers memory keeps: a launch there is mostly device
 * set-up and weight upload. Not yet measured on a GPU: llama.cpp fits unset settings (layers,
 * context) to the device memory free at its start (-fit, on by default: common/common.cpp
 * 1295-1327), so where memory is tight, servers starting together may each see memory the others
 * are about to take.
 */
export function parallelLaunches(kept: number, kind: HardwareSpec['kind'], cores = availableParallelism()): number {
  return kind === 'cpu' ? 1 : Math.max(1, Math.min(kept, cores))
}

/**
 * Servers the interleaved design keeps up at once: one per arm where memory allows. A llama-server
 * is counted as the model's size (CPU builds may repack weights into their own memory rather than
 * share the mapped file) plus 256 MiB of KV cache and buffers, against half the free memory.
 */
export function keptServers(arms: number, modelBytes: number, free = freemem()): number {
  const perServer = modelBytes + 256 * 2 ** 20
  return Math.max(1, Math.min(arms, Math.floor((free / 2) / perServer)))
}

export function llamaServerBackend(io: Io, o: Pick<ServerSweepOptions, 'modelPath' | 'concurrency' | 'requests' | 'promptTokens' | 'outputTokens' | 'onSession' | 'warmups'>, keep?: number, parallel?: number): ServerBackend {
  const target = serverTarget(io, { gguf: o.modelPath })
  return serverBackend({
    ...(o.onSession ? { onSession: o.onSession } : {}),
    ...(keep === undefined ? {} : { keepServers: { max: keep, ...(parallel === undefined ? {} : { parallelLaunches: parallel }) } }),
    // Without the pre-launch, the behaviour before issue 35 whole: warm-ups one request at a time.
    ...(parallel === undefined ? { serialWarmups: true } : {}),
    // Pre-launched servers are warmed by a wave of the measured load right after they are up, so
    // llama-server's own warm-up (an empty decode run at load, on by default: common/common.cpp
    // 1511-1546, --no-warmup in common/arg.cpp 1963-1969) would warm each twice; on a loaded
    // 2-core CPU it took 1.2-1.5 s of a 2 s launch (issue 35).
    target: parallel !== undefined && o.warmups > 0 && target.kind === 'engine' ? { ...target, extraArgs: [...(target.extraArgs ?? []), '--no-warmup'] } : target,
    load: { workload: { kind: 'synthetic', promptTokens: o.promptTokens, outputTokens: o.outputTokens }, requests: o.requests },
    level: { concurrency: o.concurrency },
    useRequestWorkload: false,
  })
}

const label = (c: Combo) => Object.entries(withoutServingDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'

/** Stores the plan as a run and measures it through the tuner with llama-servers kept across rounds; returns the design's result and the run id. */
export async function executeServerSweep(io: Io, o: ServerSweepOptions): Promise<(InterleavedSweepResult | SweepResult) & { runId: string; decided: SweepDecision }> {
  const arms = o.plan.candidates.length + 2
  // Sequential never returns to a combination: keeping the current one's server spans its chunks of repetitions.
  const keep = o.design === 'sequential' ? 1 : keptServers(arms, o.modelBytes)
  const prelaunch = o.design === 'interleaved' && o.prelaunch !== false
  const backend = llamaServerBackend(io, o, keep, prelaunch ? parallelLaunches(keep, o.hardware.kind) : undefined)
  const common = {
    store: o.store, modelPath: o.modelPath, hardware: o.hardware, plan: o.plan, backendName: 'server', backend,
    workload: { batch: o.concurrency, promptTokens: o.promptTokens, generatedTokens: o.outputTokens }, warmups: o.warmups, session: o.session, ...(o.objectives ? { objectives: o.objectives } : {}),
  }
  const design = { model: o.modelPath, gate: o.gate, metric: o.metric, epsilon: o.epsilon, margin: o.margin, warmups: o.warmups }
  try {
    if (o.design === 'sequential') {
      const bar = progressBar(io, 'sweep (server, sequential)', o.plan.candidates.length + 1)
      const { runId, result, decided } = await sweepAsRun({
        ...common, design: 'sequential', repetitions: 5, settings: design, is: (r): r is SweepResult => !('aa' in r),
        onEvent: (e) => e.type === 'progress' && bar.update(e.done, `${e.done}/${e.total}`),
      })
      bar.done()
      return { ...result, runId, decided }
    }
    if (keep < arms) io.stderr(`memory holds ${keep} of the ${arms} arms' servers at once: the others are stopped and relaunched as the rounds visit them (slower, and launch-to-launch variance enters the comparison)\n`)
    const bar = progressBar(io, 'sweep (server, interleaved)', o.rounds * arms)
    const { runId, result: r, decided } = await sweepAsRun({
      ...common, design: 'interleaved', repetitions: o.rounds,
      settings: {
        ...design,
        // Every arm's server stays up between visits, so later visits need no warm-up; servers the
        // memory bound stops are relaunched on their next visit, which then needs one.
        revisitWarmups: keep >= arms ? 0 : o.warmups,
        prelaunch,
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
    const stats = backend.poolStats()
    const timing = roundTiming(r, prelaunch ? parallelLaunches(keep, o.hardware.kind) : undefined)
    return stats ? { ...r, runId, decided, notes: [...r.notes, `llama-server launches: ${stats.launches} for ${arms} arms over ${r.rounds} rounds (${stats.relaunches} after a server died, ${stats.evictions} stopped to stay within ${keep} kept servers)`, ...(timing ? [timing] : [])] } : { ...r, runId, decided }
  } finally {
    // Every kept server stops here, whether the sweep finished, failed or was cancelled.
    await backend.close()
  }
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
