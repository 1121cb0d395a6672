/**
 * Latency objectives on `kerneltune sweep --backend server` (issue 25): the sweep's server backend
 * hands every load run here (serverBackend's onSession), and after the sweep each arm's runs are
 * pooled into one candidate: its latency statistics, its goodput under --slo (vLLM's definition),
 * its feasibility with the objectives it missed. The decision is the objectives': an infeasible
 * candidate never wins; with feasible defaults, the best feasible candidate must beat them on the
 * objective in a sign-flip test over the rounds, paired by round as the interleaved design pairs
 * every arm (sequential runs have no rounds to pair: there the better pooled value decides, and the
 * result says so). Kept apart from the sweep's own files, which only call in here.
 *
 * Candidates: index 0 is the defaults, index i the sweep's combos[i - 1]; `pareto`, `decision` and
 * --records use these indices. (The stored run's id, `runId`, is added by the sweep's run store.)
 */
import type { Combo } from '@kerneltune/core'
import { llamacppServerEngine, withoutServingDefaults } from '@kerneltune/engines-llamacpp'
import { candidateMetricsOf, objectiveValue, recordLine, type CandidateMetrics, type CapacityResult, type CapacityUnit, type RecordLine } from '@kerneltune/serving'
import { openServer, serverCapacity, type CapacityFigures, type LevelResult, type ServerTarget, type SessionResult } from '@kerneltune/serving/node'
import { objectivesTest, pairedBeats } from '@kerneltune/tuner'
import type { Io } from '../cli/command.ts'
import { fmt, table } from '../cli/output.ts'
import { capacityJson, capacityLine } from './bench/capacity.ts'
import { assess, fmtValue, objectivesHeader, verdictOf, type Assessment, type Objectives } from './shared/objectives-flags.ts'

const keyOf = (c: Combo) => JSON.stringify(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/** Collects the load runs of every arm, in the order measured (one per round in the interleaved design). */
export function createRunCollector() {
  const runs = new Map<string, LevelResult[]>()
  return {
    onSession(session: SessionResult, request: { readonly combo: Combo }) {
      const k = keyOf(request.combo)
      runs.set(k, [...(runs.get(k) ?? []), ...session.levels])
    },
    runsOf: (combo: Combo): readonly LevelResult[] => runs.get(keyOf(combo)) ?? [],
  }
}
export type RunCollector = ReturnType<typeof createRunCollector>

/** The pooled metrics of an arm's runs: its requests together, over the runs' summed durations. */
function pooled(runs: readonly LevelResult[], o: Objectives): CandidateMetrics {
  return candidateMetricsOf(runs.flatMap((r) => r.records), o.slo, runs.reduce((a, r) => a + r.metrics.durationS, 0))
}

const perRun = (runs: readonly LevelResult[], o: Objectives) => runs.map((r) => objectiveValue(candidateMetricsOf(r.records, o.slo, r.metrics.durationS), o.objective))

export interface SweepObjectives {
  readonly assessment: Assessment
  /** Combos by candidate index (0: the defaults). */
  readonly combos: readonly Combo[]
  readonly metrics: readonly CandidateMetrics[]
  /** The objectives' winner with its command line; undefined: keep the defaults (or nothing met them). */
  readonly winner?: { readonly candidate: number; readonly combo: Combo; readonly llamaServerArgv: readonly string[] }
  readonly recommendedArgv: readonly string[]
  /** How a candidate was compared with the defaults. */
  readonly test: string
  readonly records: readonly RecordLine[]
}

/**
 * Assesses the sweep's arms under the objectives. `paired`: the runs are rounds (interleaved), so
 * the winner must beat the defaults in a two-sided sign-flip test (p < 0.05) on the per-round
 * difference of the objective, in its direction.
 */
export async function assessSweep(collector: RunCollector, baseline: Combo, combos: readonly { readonly combo: Combo; readonly error?: string }[], o: Objectives, paired: boolean, model: string): Promise<SweepObjectives> {
  const all = [baseline, ...combos.map((c) => c.combo)]
  const runs = all.map((c) => collector.runsOf(c))
  const metrics = runs.map((r) => pooled(r, o))
  const beats = paired ? pairedBeats(runs.map((r) => perRun(r, o)), 0, o) : undefined
  const assessment = assess(metrics, o, 0, beats)
  const w = assessment.decision?.winner ?? null
  const engine = llamacppServerEngine()
  const argvOf = async (combo: Combo) => {
    const t = await engine.translate(withoutServingDefaults(combo), { model })
    return t.ok ? [...t.argv] : []
  }
  const records = runs.flatMap((rs, candidate) => rs.flatMap((run, round) => run.records.map((r) => recordLine(candidate, r, { [paired ? 'round' : 'run']: round + 1 }))))
  return {
    assessment,
    combos: all,
    metrics,
    ...(w === null ? {} : { winner: { candidate: w, combo: all[w]!, llamaServerArgv: await argvOf(all[w]!) } }),
    recommendedArgv: await argvOf(w === null ? baseline : all[w]!),
    test: objectivesTest(o, paired),
    records,
  }
}

const labelOf = (c: Combo) => Object.entries(withoutServingDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'
const p99 = (m: CandidateMetrics, k: 'ttftMs' | 'tpotMs') => (Number.isFinite(m[k].p99) ? fmt(m[k].p99, 1) : '-')

/** The fields --json adds: objective, slo, per candidate feasibility, the Pareto front and the decision. */
export function sweepObjectivesJson(s: SweepObjectives) {
  const a = s.assessment
  return {
    objective: a.objective,
    slo: a.slo,
    candidates: a.candidates.map((c, index) => {
      const m = s.metrics[index]!
      return {
        index,
        role: index === 0 ? 'defaults' : 'candidate',
        combo: s.combos[index],
        ...c,
        requests: m.requests,
        ttftMs: { mean: m.ttftMs.mean, p50: m.ttftMs.p50, p90: m.ttftMs.p90, p99: m.ttftMs.p99 },
        tpotMs: { mean: m.tpotMs.mean, p50: m.tpotMs.p50, p90: m.tpotMs.p90, p99: m.tpotMs.p99 },
        itlMs: { mean: m.itlMs.mean, p99: m.itlMs.p99 },
        e2eMs: { mean: m.e2eMs.mean, p99: m.e2eMs.p99 },
        requestThroughput: m.requestThroughput,
        outputTokensPerSecond: m.outputTokensPerSecond,
      }
    }),
    pareto: a.pareto,
    paretoAxes: a.paretoAxes,
    decision: { by: 'objectives', winner: a.decision?.winner ?? null, defaultsFeasible: a.decision?.defaultsFeasible ?? null, reason: a.decision?.reason ?? '', test: s.test },
  }
}

export function renderSweepObjectives(o: Objectives, s: SweepObjectives): string {
  const a = s.assessment
  const order = a.decision?.ranking.map((r) => r.index) ?? a.candidates.map((_, i) => i)
  const rows = order.map((i) => {
    const c = a.candidates[i]!
    const m = s.metrics[i]!
    return [`${i}`, labelOf(s.combos[i]!), fmtValue(c.objectiveValue), c.goodput ? fmt(c.goodput.requestsPerSecond, 2) : '-', p99(m, 'ttftMs'), p99(m, 'tpotMs'), a.pareto.includes(i) ? 'yes' : '', verdictOf(c)]
  })
  let out = '\n' + objectivesHeader(o)
  out += table(rows, ['#', 'combination', o.objective.name, 'goodput req/s', 'TTFT p99', 'TPOT p99', 'Pareto', 'objectives'])
  const defaultsMeasured = s.metrics[0]!.requests.completed + s.metrics[0]!.requests.failed > 0
  if (a.decision && !a.decision.defaultsFeasible && defaultsMeasured) out += 'the defaults miss the objectives: the winner must meet them\n'
  // The paired test only compares with feasible defaults: against infeasible ones any feasible candidate is better.
  out += `decision by the objectives: ${a.decision?.reason ?? ''}${a.decision?.defaultsFeasible ? ` (${s.test})` : ''}\n`
  out += `Pareto front (${a.paretoAxes.throughput} against ${a.paretoAxes.latency}): ${a.pareto.map((i) => `#${i}`).join(', ') || 'none'}\n`
  out += `recommended: ${s.recommendedArgv.join(' ')}\n`
  return out
}

export interface CapacityReport {
  readonly candidate: number
  readonly combo: Combo
  readonly capacity: CapacityResult<CapacityFigures>
  /** The search's deadline, under a time budget (Date.now() clock), and when it ended, its server's launch included. */
  readonly deadlineAt?: number
  readonly endedAt: number
  /** Its longest measurement (the first has the warm-up), ms. */
  readonly longestMeasurementMs: number
}

/** A time budget for the searches: when the last must end, and what to do after each. */
export interface CapacityBudget {
  readonly deadlineAt: number
  /** The least time a search needs to measure anything (a server's launch and one load: the rounds' longest visit), ms. */
  readonly leastMs?: number
  readonly onSearch?: (done: readonly CapacityReport[]) => Promise<void>
}

/**
 * `--capacity`: the capacity of the defaults and of the winner, each on a server of its own, one
 * after the other. Under a time budget they share the time left equally (the winner's capacity
 * says little without the defaults' beside it): each search gets its share plus whatever the one
 * before left. When the time left cannot give each remaining search `leastMs`, fewer searches
 * share it, the defaults' first; one left without time is not started (stop 'deadline', no
 * points), so no server is launched that could not measure before the deadline.
 */
export async function sweepCapacity(io: Io, target: ServerTarget, s: SweepObjectives, o: Objectives, unit: CapacityUnit, load: { readonly requests: number; readonly promptTokens: number; readonly outputTokens: number }, budget?: CapacityBudget): Promise<CapacityReport[]> {
  const which = [0, ...(s.winner ? [s.winner.candidate] : [])]
  const out: CapacityReport[] = []
  for (const [k, candidate] of which.entries()) {
    const combo = s.combos[candidate]!
    const t0 = Date.now()
    const left = budget ? budget.deadlineAt - t0 : 0
    let sharing = which.length - k
    while (budget && sharing > 0 && left / sharing < Math.max(1, budget.leastMs ?? 0)) sharing--
    const deadlineAt = budget ? (sharing > 0 ? t0 + left / sharing : t0) : undefined
    if (deadlineAt !== undefined && deadlineAt <= t0) {
      io.stderr(`capacity of #${candidate} ${labelOf(combo)}: not searched: ${fmt(Math.max(0, left) / 1000, 1)} s of the time budget left, less than a launch and one measurement took in the rounds (${fmt((budget!.leastMs ?? 0) / 1000, 1)} s)\n`)
      out.push({ candidate, combo, capacity: { value: null, low: 0, high: null, unit, points: [], stop: 'deadline' }, deadlineAt, endedAt: t0, longestMeasurementMs: 0 })
      continue
    }
    io.stderr(`capacity of #${candidate} ${labelOf(combo)} under ${o.slo.map((x) => `${x.name}=${x.limitMs}`).join(',')}${deadlineAt === undefined ? '' : `, ${fmt((deadlineAt - t0) / 1000, 0)} s of the time budget`}\n`)
    const server = await openServer({ target, combo })
    let started = 0
    let longest = 0
    try {
      const capacity = await serverCapacity({
        // Two seconds of arrivals per rate (bench capacity's default is 4) keep the sweep's tail short.
        server, slo: o.slo, unit, start: 1, requests: load.requests, minSeconds: 2, maxMeasurements: 16,
        load: { workload: { kind: 'synthetic', promptTokens: load.promptTokens, outputTokens: load.outputTokens }, requests: load.requests, warmups: 1 },
        ...(deadlineAt === undefined ? {} : { deadlineAt }),
        onProgress: (m) => ((started = Date.now()), io.stderr(`  ${m}\n`)),
        onRecords: () => void (longest = Math.max(longest, Date.now() - started)),
      })
      if (capacity.stop === 'deadline') io.stderr(`  the time budget ended the search after ${capacity.points.length} measurements\n`)
      out.push({ candidate, combo, capacity, ...(deadlineAt === undefined ? {} : { deadlineAt }), endedAt: Date.now(), longestMeasurementMs: longest })
    } finally {
      await server.stop()
    }
    await budget?.onSearch?.(out)
  }
  return out
}

export const capacityReportJson = (rs: readonly CapacityReport[]) => rs.map((r) => ({ candidate: r.candidate, combo: r.combo, capacity: capacityJson(r.capacity) }))
export const renderCapacityReports = (rs: readonly CapacityReport[]) => rs.map((r) => `#${r.candidate} ${labelOf(r.combo)}: ${capacityLine(r.capacity)}\n`).join('')

/** What the sweep prints with objectives: its JSON fields (the objectives' winner replaces the gate's, which stays as gateWinner) and text. */
export function sweepObjectivesOutput<C extends { readonly combo: Combo }>(r: { readonly baseline: C; readonly combos: readonly C[]; readonly winner?: { readonly combo: Combo } | undefined }, o: Objectives, s: SweepObjectives, capacity: readonly CapacityReport[] | undefined) {
  const a = s.assessment
  const per = (i: number) => {
    const c = a.candidates[i]!
    return { candidate: i, feasible: c.feasible, violations: c.violations, ...(c.goodput ? { goodput: c.goodput } : {}) }
  }
  const w = s.winner
  return {
    json: {
      ...sweepObjectivesJson(s),
      baseline: { ...r.baseline, ...per(0) },
      combos: r.combos.map((c, i) => ({ ...c, ...per(i + 1) })),
      winner: w ? { ...r.combos[w.candidate - 1]!, ...per(w.candidate), llamaServerArgv: w.llamaServerArgv } : null,
      gateWinner: r.winner?.combo ?? null,
      recommendedArgv: s.recommendedArgv,
      ...(capacity ? { capacity: capacityReportJson(capacity) } : {}),
    },
    text: renderSweepObjectives(o, s) + (capacity ? renderCapacityReports(capacity) : ''),
    hasWinner: w !== undefined,
  }
}
