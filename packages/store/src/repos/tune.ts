/** Tier 2 tune sessions and their trials. The optimizer state is saved with each trial, atomically. */
import type { Combo, TuneBudget, TuneSession, TuneStatus, TuneTrial } from '@kerneltune/core'
import { KerneltuneError } from '@kerneltune/core'
import type { Row, SqlDriver } from '../driver.ts'
import { fromJson, newId, notFound, now, toJson } from '../util.ts'

function toSession(r: Row): TuneSession {
  return {
    id: String(r.id),
    tenant: String(r.tenant),
    runId: String(r.run_id),
    status: r.status as TuneStatus,
    strategy: String(r.strategy),
    budget: fromJson(r.budget),
    narrowing: fromJson(r.narrowing) ?? {},
    optimizerState: fromJson(r.bayesian_state),
    trialsDone: Number(r.trials_done),
    elapsedMs: Number(r.elapsed_ms),
    best: fromJson(r.best),
    error: (r.error as string | null) ?? null,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  }
}

function toTrial(r: Row): TuneTrial {
  return {
    sessionId: String(r.session_id),
    index: Number(r.idx),
    config: fromJson(r.config),
    outcome: r.outcome as TuneTrial['outcome'],
    value: r.value === null || r.value === undefined ? null : Number(r.value),
    metrics: fromJson(r.metrics),
    createdAt: String(r.created_at),
  }
}

export interface NewTuneSession {
  readonly tenant: string
  readonly runId: string
  readonly strategy: string
  readonly budget: TuneBudget
  readonly narrowing: Record<string, unknown>
  readonly optimizerState: unknown
}

export interface TrialRecord {
  readonly index: number
  readonly config: Combo
  readonly outcome: TuneTrial['outcome']
  readonly value: number | null
  readonly metrics?: Record<string, unknown> | null
}

export function tuneRepo(db: SqlDriver): TuneRepo {
  return {
    async create(input: NewTuneSession): Promise<TuneSession> {
      const id = newId()
      const t = now()
      await db.run(
        `INSERT INTO kernel_tune_sessions (id, tenant, run_id, status, strategy, budget, narrowing, bayesian_state, trials_done,
          elapsed_ms, best, error, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, 0, 0, NULL, NULL, ?, ?)`,
        [id, input.tenant, input.runId, input.strategy, JSON.stringify(input.budget), JSON.stringify(input.narrowing),
          toJson(input.optimizerState), t, t],
      )
      return (await this.get(input.tenant, id))!
    },

    async get(tenant: string | null, id: string): Promise<TuneSession | undefined> {
      const r = (await db.query('SELECT * FROM kernel_tune_sessions WHERE id = ?', [id]))[0]
      if (!r || (tenant !== null && r.tenant !== tenant)) return undefined
      return toSession(r)
    },

    async require(tenant: string | null, id: string): Promise<TuneSession> {
      const s = await this.get(tenant, id)
      if (!s) throw notFound('tune session', id)
      return s
    },

    async list(tenant: string | null, limit = 50, offset = 0): Promise<TuneSession[]> {
      const rows = tenant === null
        ? await db.query('SELECT * FROM kernel_tune_sessions ORDER BY created_at DESC LIMIT ? OFFSET ?', [limit, offset])
        : await db.query('SELECT * FROM kernel_tune_sessions WHERE tenant = ? ORDER BY created_at DESC LIMIT ? OFFSET ?', [tenant, limit, offset])
      return rows.map(toSession)
    },

    async trials(sessionId: string): Promise<TuneTrial[]> {
      return (await db.query('SELECT * FROM kernel_tune_trials WHERE session_id = ? ORDER BY idx', [sessionId])).map(toTrial)
    },

    /**
     * Records a trial together with the optimizer state that has seen it, the running best and the
     * elapsed time, in one transaction. A trial index is stored at most once (primary key), so a
     * resumed session can never record the same trial twice.
     */
    async recordTrial(sessionId: string, trial: TrialRecord, state: { optimizerState: unknown; best: TuneSession['best']; elapsedMs: number }): Promise<void> {
      await db.transaction(async (tx) => {
        const current = (await tx.query<{ trials_done: number; status: string }>('SELECT trials_done, status FROM kernel_tune_sessions WHERE id = ?', [sessionId]))[0]
        if (!current) throw notFound('tune session', sessionId)
        if (Number(current.trials_done) !== trial.index) {
          throw new KerneltuneError('CONFLICT', `tune session ${sessionId} expects trial ${current.trials_done}, got ${trial.index}`)
        }
        await tx.run('INSERT INTO kernel_tune_trials (session_id, idx, config, outcome, value, metrics, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          sessionId, trial.index, JSON.stringify(trial.config), trial.outcome, trial.value, toJson(trial.metrics ?? null), now(),
        ])
        await tx.run(
          'UPDATE kernel_tune_sessions SET bayesian_state = ?, best = ?, elapsed_ms = ?, trials_done = trials_done + 1, updated_at = ? WHERE id = ?',
          [toJson(state.optimizerState), toJson(state.best), state.elapsedMs, now(), sessionId],
        )
      })
    },

    async setStatus(id: string, status: TuneStatus, error: string | null = null, optimizerState?: unknown): Promise<void> {
      if (optimizerState === undefined) {
        await db.run('UPDATE kernel_tune_sessions SET status = ?, error = ?, updated_at = ? WHERE id = ?', [status, error, now(), id])
      } else {
        await db.run('UPDATE kernel_tune_sessions SET status = ?, error = ?, bayesian_state = ?, updated_at = ? WHERE id = ?', [
          status, error, toJson(optimizerState), now(), id,
        ])
      }
    },
  }
}
/** What tuneRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface TuneRepo {
  create(input: NewTuneSession): Promise<TuneSession>
  get(tenant: string | null, id: string): Promise<TuneSession | undefined>
  require(tenant: string | null, id: string): Promise<TuneSession>
  list(tenant: string | null, limit?: number, offset?: number): Promise<TuneSession[]>
  trials(sessionId: string): Promise<TuneTrial[]>
  /**
   * Records a trial together with the optimizer state that has seen it, the running best and the
   * elapsed time, in one transaction. A trial index is stored at most once (primary key), so a
   * resumed session can never record the same trial twice.
   */
  recordTrial(sessionId: string, trial: TrialRecord, state: { optimizerState: unknown; best: TuneSession['best']; elapsedMs: number }): Promise<void>
  setStatus(id: string, status: TuneStatus, error?: string | null, optimizerState?: unknown): Promise<void>
}
