/**
 * A time budget for a whole sweep command (`kerneltune sweep --time-budget SECONDS`, issue 35), counted
 * from its start: the rounds, the --capacity searches and the report. The rule:
 *
 * - The last measurement must end by the budget less a reserve for what follows it (stopping the
 *   servers, storing the run, the report): REPORT_RESERVE_S, at most a tenth of the budget.
 * - Without --capacity the rounds have all of that. With it they have two thirds of it, and the
 *   searches (the defaults', then the winner's) share what the rounds leave, equally, each getting
 *   the time its predecessor did not use; a search the time left cannot give one launch and one
 *   measurement (the rounds' longest visit) is not started, the defaults' kept first.
 * - Each part stops at a measurement boundary: no measurement starts that its last length says
 *   would end after the part's deadline. One that started before it is let finish, and cancelled
 *   (and dropped) only when still running one measurement's length past it: cutting a load wastes
 *   it, and an engine's server, its requests cut, can hang on SIGTERM until the launcher's SIGKILL. So
 *   the command ends within the budget plus one measurement.
 * - The budget binds from the first measurement. A budget too short for 2 rounds of the defaults
 *   ends the sweep with fewer: nothing can be compared, the defaults stay, and the verdict says
 *   so, instead of the sweep overrunning the budget for rounds that it then could not use either.
 *   (The sign-flip test needs 7 rounds to reach p < 0.05: fewer decide nothing, as the verdict says.)
 * - Whatever ended, the sweep decides with what it measured, stores the run and prints the result,
 *   and says what the budget ended (--json: `budget`).
 */
import type { InterleavedSweepResult } from './interleaved-sweep.ts'

/** A number as the CLI prints it: en-US grouping, `digits` decimals. */
const fmt = (n: number, digits: number): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(n))

/** What the budget reads of a capacity search (the sweep's CapacityReport): its deadline, when it ended and why. */
export interface BudgetSearch {
  readonly candidate: number
  readonly deadlineAt?: number
  readonly endedAt: number
  readonly longestMeasurementMs: number
  readonly capacity: { readonly stop: string; readonly points: readonly unknown[] }
}

/** Kept back for what follows the last measurement: stopping the servers, storing the run, the report. */
export const REPORT_RESERVE_S = 2
/** With --capacity, the rounds' share of the budget; the capacity searches get the rest and whatever the rounds leave. */
export const ROUNDS_SHARE_WITH_CAPACITY = 2 / 3

export interface SweepBudget {
  readonly seconds: number
  /** When the command started (Date.now() clock). */
  readonly startedAt: number
  /** When the last measurement must have ended: the budget less the report's reserve. */
  readonly deadlineAt: number
  /** When the rounds must have ended. */
  readonly roundsDeadlineAt: number
}

export function planBudget(seconds: number, startedAt: number, capacity: boolean): SweepBudget {
  const measuringMs = (seconds - Math.min(REPORT_RESERVE_S, seconds / 10)) * 1000
  return { seconds, startedAt, deadlineAt: startedAt + measuringMs, roundsDeadlineAt: startedAt + measuringMs * (capacity ? ROUNDS_SHARE_WITH_CAPACITY : 1) }
}

/** What the parts of the sweep did with their time, read back for the report. */
export interface BudgetUse {
  /** When the rounds (and the storing of their run) ended. */
  readonly roundsEndedAt: number
  readonly capacity?: readonly BudgetSearch[]
}

const at = (b: SweepBudget, t: number) => Math.round((t - b.startedAt) / 10) / 100

/** One capacity search in the budget's JSON. */
export interface BudgetSearchJson {
  readonly candidate: number
  readonly untilS: number | null
  readonly endedAtS: number
  readonly ended: boolean
  readonly measurements: number
  readonly longestMeasurementS: number
}

/** The `budget` field of the sweep's JSON. */
export interface BudgetJson {
  readonly seconds: number
  readonly startedAt: string
  readonly ended: boolean
  readonly endedIn: 'capacity' | 'rounds' | null
  readonly rounds: { readonly untilS: number; readonly endedAtS: number; readonly ended: boolean; readonly measured: number; readonly planned: number; readonly partialRound: boolean; readonly longestVisitS: number }
  readonly capacity: { readonly untilS: number; readonly searches: readonly BudgetSearchJson[] } | null
  readonly longestMeasurementS: number
  readonly elapsedS: number
  readonly note: string
}

/** The `budget` field of the sweep's JSON. */
export function budgetJson(b: SweepBudget, r: InterleavedSweepResult, use: BudgetUse, now: number = Date.now()): BudgetJson {
  const searches = (use.capacity ?? []).map((c) => ({
    candidate: c.candidate, untilS: c.deadlineAt === undefined ? null : at(b, c.deadlineAt), endedAtS: at(b, c.endedAt), ended: c.capacity.stop === 'deadline',
    measurements: c.capacity.points.length, longestMeasurementS: c.longestMeasurementMs / 1000,
  }))
  const capacityEnded = searches.some((s) => s.ended)
  return {
    seconds: b.seconds,
    startedAt: new Date(b.startedAt).toISOString(),
    ended: r.budgetEnded || capacityEnded,
    endedIn: capacityEnded ? 'capacity' : r.budgetEnded ? 'rounds' : null,
    rounds: { untilS: at(b, b.roundsDeadlineAt), endedAtS: at(b, use.roundsEndedAt), ended: r.budgetEnded, measured: r.rounds, planned: r.settings.rounds, partialRound: r.partialRound, longestVisitS: r.longestVisitMs / 1000 },
    capacity: use.capacity ? { untilS: at(b, b.deadlineAt), searches } : null,
    // The overrun the contract allows: one measurement (the longest seen, a first visit's launch included).
    longestMeasurementS: Math.max(r.longestVisitMs, ...(use.capacity ?? []).map((c) => c.longestMeasurementMs)) / 1000,
    elapsedS: at(b, now),
    note: budgetText(b, r, use, now),
  }
}

/** The budget in words: what it allowed, and what it ended. */
export function budgetText(b: SweepBudget, r: InterleavedSweepResult, use: BudgetUse, now: number = Date.now()): string {
  const parts = [`time budget ${fmt(b.seconds, 0)} s for the whole command`]
  parts.push(r.budgetEnded
    ? `it ended the rounds at ${fmt(at(b, use.roundsEndedAt), 1)} s (their share ran to ${fmt(at(b, b.roundsDeadlineAt), 1)} s) after ${r.rounds} of ${r.settings.rounds}${r.partialRound ? ', the last one partial' : ''}`
    : `the ${r.rounds} rounds ended within it, at ${fmt(at(b, use.roundsEndedAt), 1)} s`)
  for (const c of use.capacity ?? []) {
    parts.push(c.capacity.stop === 'deadline'
      ? `it ended #${c.candidate}'s capacity search after ${c.capacity.points.length} measurements, at ${fmt(at(b, c.endedAt), 1)} s`
      : `#${c.candidate}'s capacity search ended within it (${c.capacity.stop}), at ${fmt(at(b, c.endedAt), 1)} s`)
  }
  parts.push(`${fmt(at(b, now), 1)} s used before this report`)
  return parts.join('; ')
}
