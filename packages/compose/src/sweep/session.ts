/**
 * What a sweep path is given by its command and what it gives back: the store, the planned-for
 * machine, the resume session, how to talk to the user (progress and notes on stderr, the caller's
 * tables and numbers), and, back, the exit code, the --json document and the human report.
 */
import type { HardwareSpec } from '@kerneltune/core'
import type { Objectives, RecordLine } from '@kerneltune/serving'
import type { Store } from '@kerneltune/store'
import type { ObjectivesText } from './objectives.node.ts'
import type { SweepFlags } from './plan.ts'
import type { SweepSpec } from './hold.node.ts'

export interface SweepProgress {
  update(done: number, note?: string): void
  done(note?: string): void
}

export interface SweepIo {
  readonly stderr: (text: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly text: ObjectivesText
  progress(label: string, total: number): SweepProgress
}

export interface SweepInput {
  readonly io: SweepIo
  readonly flags: SweepFlags
  readonly store: Store
  readonly hardware: HardwareSpec
  /** Logical cores the plan is made for (a resume: the stored count). */
  readonly cores: number
  /** The flags to store for a resume (the command's own table writes them). */
  readonly specOf: (flags: SweepFlags) => SweepSpec
  readonly signal: AbortSignal
  readonly resumeRunId?: string
  readonly force: boolean
  /** When the command started (Date.now() clock): --time-budget counts from it. */
  readonly startedAt: number
  /** --slo/--objective, parsed by the command. */
  readonly objectives?: Objectives
  /** Writes --records; returns where. */
  readonly writeRecords?: (lines: readonly RecordLine[]) => Promise<string>
}

/** What the command prints: --json's document or the report, and its exit code (0: a setting to change; 3: the defaults stay). */
export interface SweepOutcome {
  readonly code: 0 | 3
  readonly json: Record<string, unknown>
  readonly text: string
}
