/** Events a run or a tune session emits while it works; the server streams them as SSE. */
import type { ComboMetrics, Combo } from '@kerneltune/core'

export type RunEvent =
  | { type: 'run.started'; runId: string; total: number }
  | { type: 'combo.started'; runId: string; index: number; comboHash: string }
  | { type: 'combo.measured'; runId: string; index: number; comboHash: string; cached: boolean; simulated: boolean; metrics: ComboMetrics | null; repetitions: number; stoppedEarly: boolean; error: string | null }
  | { type: 'progress'; runId: string; done: number; total: number }
  | { type: 'run.finished'; runId: string; status: 'succeeded' | 'failed' | 'cancelled'; summary: unknown; error: string | null }

export type TuneEvent =
  | { type: 'tune.started'; sessionId: string; trialsDone: number }
  | { type: 'trial'; sessionId: string; index: number; config: Combo; outcome: 'ok' | 'infeasible' | 'failed'; value: number | null; best: { trial: number; config: Combo; value: number } | null }
  | { type: 'tune.finished'; sessionId: string; status: 'completed' | 'cancelled' | 'failed' | 'paused'; best: { trial: number; config: Combo; value: number } | null; error: string | null }

export type TunerEvent = RunEvent | TuneEvent
