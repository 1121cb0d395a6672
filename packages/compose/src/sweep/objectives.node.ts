/**
 * Latency objectives on `kerneltune sweep --backend server` (issue 25), as the stored run judged
 * them: the tuner's summary pools each combination's requests (every repetition stores its load
 * run) into its latency statistics, goodput under --slo and feasibility, and its one verdict
 * decides (issue 36: this file once judged the sweep a second time, from load runs collected on
 * the side, and could name a winner the stored verdict withheld). Here that judgement is read back
 * and printed, with the capacity searches of the defaults and of the verdict's winner.
 *
 * Candidates are the run's combination indices: 0 is the defaults, i the sweep's combos[i - 1].
 */
import type { Combo, RunCombo } from '@kerneltune/core'
import { recordLine, type CandidateAssessment, type CandidateMetrics, type CapacityResult, type CapacityUnit, type Objectives, type RecordLine } from '@kerneltune/serving'
import { openServer, serverCapacity, type CapacityFigures, type ServerTarget } from '@kerneltune/serving/node'
import type { Store } from '@kerneltune/store'
import { servedMetrics, type RunObjectives, type RunVerdict } from '@kerneltune/tuner'
import { comboLabel as labelOf } from './plan.ts'
import type { SweepText } from './report.ts'

/** How the caller words objectives and capacities (the CLI's, shared with bench serve and bench capacity). */
export interface ObjectivesText extends SweepText {
  objectivesHeader(o: Objectives): string
  verdictOf(c: CandidateAssessment): string
  fmtValue(x: number | null): string
  capacityLine(c: CapacityResult<CapacityFigures>): string
  capacityJson(c: CapacityResult<CapacityFigures>): unknown
}

/** What the stored run says under its objectives: their judgement, the run's verdict, and each combination's pooled metrics. */
export interface StoredObjectives {
  readonly objectives: RunObjectives
  readonly verdict: RunVerdict
  /** The run's combinations, by index. */
  readonly combos: readonly RunCombo[]
  readonly metrics: readonly (CandidateMetrics | undefined)[]
  /** Whether the repetitions are rounds (interleaved): --records numbers them so. */
  readonly paired: boolean
}

/** Reads the stored run's objectives and verdict back; undefined when the run judged none. */
export async function readStoredObjectives(store: Store, runId: string, o: Objectives): Promise<StoredObjectives | undefined> {
  const run = await store.runs.require(null, runId)
  const s = run.summary as { objectives?: RunObjectives; verdict?: RunVerdict; experiment?: { design?: string } } | null
  if (!s?.objectives || !s.verdict) return undefined
  const combos = [...(await store.runs.combos(runId))].sort((a, b) => a.index - b.index)
  return { objectives: s.objectives, verdict: s.verdict, combos, metrics: combos.map((c) => servedMetrics(c.repetitions, o)), paired: s.experiment?.design === 'interleaved' }
}

/** --records: one line per request the run stored, by combination and round (interleaved) or run. */
export const storedRecords = (s: StoredObjectives): RecordLine[] =>
  s.combos.flatMap((c) => c.repetitions.flatMap((r, k) => (r.serving?.requests ?? []).map((q) => recordLine(c.index, q, { [s.paired ? 'round' : 'run']: k + 1 }))))

/** The verdict's winner as a candidate index; null unless the verdict names one. */
const winnerOf = (s: StoredObjectives) => (s.verdict.kind === 'winner' ? s.verdict.index : null)

const p99 = (t: SweepText, m: CandidateMetrics | undefined, k: 'ttftMs' | 'tpotMs') => (m && Number.isFinite(m[k].p99) ? t.fmt(m[k].p99, 1) : '-')

/** The fields --json adds: objective, slo, per candidate feasibility and latency, the Pareto front and the decision (the verdict's). */
export function sweepObjectivesJson(s: StoredObjectives) {
  const a = s.objectives
  return {
    objective: a.objective,
    slo: a.slo,
    candidates: a.candidates.map(({ index, combo, ...c }) => {
      const m = s.metrics[index]
      return {
        index, role: index === 0 ? 'defaults' : 'candidate', combo, ...c,
        ...(m ? {
          requests: m.requests,
          ttftMs: { mean: m.ttftMs.mean, p50: m.ttftMs.p50, p90: m.ttftMs.p90, p99: m.ttftMs.p99 },
          tpotMs: { mean: m.tpotMs.mean, p50: m.tpotMs.p50, p90: m.tpotMs.p90, p99: m.tpotMs.p99 },
          itlMs: { mean: m.itlMs.mean, p99: m.itlMs.p99 },
          e2eMs: { mean: m.e2eMs.mean, p99: m.e2eMs.p99 },
          requestThroughput: m.requestThroughput,
          outputTokensPerSecond: m.outputTokensPerSecond,
        } : {}),
      }
    }),
    pareto: a.pareto,
    paretoAxes: a.paretoAxes,
    // One decision: the run's verdict; what the objectives alone found stays beside it as evidence.
    decision: { by: s.verdict.decidedBy, winner: winnerOf(s), defaultsFeasible: a.decision.defaultsFeasible, reason: s.verdict.headline, objectives: a.decision.reason, test: a.decision.test },
  }
}

export function renderSweepObjectives(t: ObjectivesText, o: Objectives, s: StoredObjectives): string {
  const a = s.objectives
  // Feasible first, then by the objective in its direction (unreadable values last).
  const max = o.objective.direction === 'max'
  const value = (x: number | null) => x ?? (max ? -Infinity : Infinity)
  const order = [...a.candidates].sort((x, y) => Number(y.feasible) - Number(x.feasible) || (max ? value(y.objectiveValue) - value(x.objectiveValue) : value(x.objectiveValue) - value(y.objectiveValue)))
  const rows = order.map((c) => [`${c.index}`, labelOf(c.combo), t.fmtValue(c.objectiveValue), c.goodput ? t.fmt(c.goodput.requestsPerSecond, 2) : '-', p99(t, s.metrics[c.index], 'ttftMs'), p99(t, s.metrics[c.index], 'tpotMs'), a.pareto.includes(c.index) ? 'yes' : '', t.verdictOf(c)])
  let out = '\n' + t.objectivesHeader(o)
  out += t.table(rows, ['#', 'combination', o.objective.name, 'goodput req/s', 'TTFT p99', 'TPOT p99', 'Pareto', 'objectives'])
  if (a.decision.defaultsFeasible === false && a.candidates.some((c) => c.index === 0)) out += 'the defaults miss the objectives: the winner must meet them\n'
  out += `the objectives alone: ${a.decision.reason}${a.decision.defaultsFeasible ? ` (${a.decision.test})` : ''}\n`
  out += `Pareto front (${a.paretoAxes.throughput} against ${a.paretoAxes.latency}): ${a.pareto.map((i) => `#${i}`).join(', ') || 'none'}\n`
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
 * `--capacity`: the capacity of the defaults and of the verdict's winner, each on a server of its own, one
 * after the other. Under a time budget they share the time left equally (the winner's capacity
 * says little without the defaults' beside it): each search gets its share plus whatever the one
 * before left. When the time left cannot give each remaining search `leastMs`, fewer searches
 * share it, the defaults' first; one left without time is not started (stop 'deadline', no
 * points), so no server is launched that could not measure before the deadline.
 */
export async function sweepCapacity(io: { readonly stderr: (text: string) => void; readonly text: SweepText }, target: ServerTarget, s: StoredObjectives, o: Objectives, unit: CapacityUnit, load: { readonly requests: number; readonly promptTokens: number; readonly outputTokens: number }, budget?: CapacityBudget): Promise<CapacityReport[]> {
  const w = winnerOf(s)
  const which = [0, ...(w === null ? [] : [w])]
  const out: CapacityReport[] = []
  for (const [k, candidate] of which.entries()) {
    const combo = s.combos.find((c) => c.index === candidate)?.combo ?? {}
    const t0 = Date.now()
    const left = budget ? budget.deadlineAt - t0 : 0
    let sharing = which.length - k
    while (budget && sharing > 0 && left / sharing < Math.max(1, budget.leastMs ?? 0)) sharing--
    const deadlineAt = budget ? (sharing > 0 ? t0 + left / sharing : t0) : undefined
    if (deadlineAt !== undefined && deadlineAt <= t0) {
      io.stderr(`capacity of #${candidate} ${labelOf(combo)}: not searched: ${io.text.fmt(Math.max(0, left) / 1000, 1)} s of the time budget left, less than a launch and one measurement took in the rounds (${io.text.fmt((budget!.leastMs ?? 0) / 1000, 1)} s)\n`)
      out.push({ candidate, combo, capacity: { value: null, low: 0, high: null, unit, points: [], stop: 'deadline' }, deadlineAt, endedAt: t0, longestMeasurementMs: 0 })
      continue
    }
    io.stderr(`capacity of #${candidate} ${labelOf(combo)} under ${o.slo.map((x) => `${x.name}=${x.limitMs}`).join(',')}${deadlineAt === undefined ? '' : `, ${io.text.fmt((deadlineAt - t0) / 1000, 0)} s of the time budget`}\n`)
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

export const capacityReportJson = (t: ObjectivesText, rs: readonly CapacityReport[]) => rs.map((r) => ({ candidate: r.candidate, combo: r.combo, capacity: t.capacityJson(r.capacity) }))
export const renderCapacityReports = (t: ObjectivesText, rs: readonly CapacityReport[]) => rs.map((r) => `#${r.candidate} ${labelOf(r.combo)}: ${t.capacityLine(r.capacity)}\n`).join('')

/** What the sweep prints with objectives: its JSON fields (the verdict's winner; the design's stays as gateWinner) and text. */
export function sweepObjectivesOutput<C extends { readonly combo: Combo; readonly hash: string }>(t: ObjectivesText, r: { readonly baseline: { readonly combo: Combo }; readonly combos: readonly C[]; readonly winner?: { readonly combo: Combo } | undefined }, o: Objectives, s: StoredObjectives, capacity: readonly CapacityReport[] | undefined) {
  const per = (index: number) => {
    const c = s.objectives.candidates.find((x) => x.index === index)
    return { candidate: index, ...(c ? { feasible: c.feasible, violations: c.violations, ...(c.goodput ? { goodput: c.goodput } : {}) } : {}) }
  }
  const indexOf = (hash: string) => s.combos.find((c) => c.comboHash === hash)?.index ?? -1
  const w = winnerOf(s)
  const winner = w === null ? undefined : r.combos.find((c) => indexOf(c.hash) === w)
  return {
    json: {
      ...sweepObjectivesJson(s),
      baseline: { ...r.baseline, ...per(0) },
      combos: r.combos.map((c) => ({ ...c, ...per(indexOf(c.hash)) })),
      winner: winner && w !== null ? { ...winner, ...per(w), argv: s.verdict.recommendedArgv ?? [] } : null,
      gateWinner: r.winner?.combo ?? null,
      ...(capacity ? { capacity: capacityReportJson(t, capacity) } : {}),
    },
    text: renderSweepObjectives(t, o, s) + (capacity ? renderCapacityReports(t, capacity) : ''),
  }
}
