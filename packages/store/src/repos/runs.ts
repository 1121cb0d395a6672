/** Catalog snapshots, Tier 1 runs and their combinations. */
import type { Combo, Run, RunCombo, RunStatus, RunTarget } from '@kerneltune/core'
import type { Row, SqlDriver, SqlExecutor } from '../driver.ts'
import { bool, fromJson, newId, notFound, now, toJson } from '../util.ts'

export interface SnapshotInput {
  readonly hash: string
  readonly version: string
  readonly content: unknown
}

export interface NewRun {
  readonly tenant: string
  readonly mode: Run['mode']
  readonly target: RunTarget
  readonly snapshot: SnapshotInput
  readonly qualityGate: Run['qualityGate']
  readonly backend: string
  readonly repetitions: number
  readonly combos: readonly { combo: Combo; comboHash: string; isBaseline: boolean }[]
}

export interface RunFilter {
  readonly status?: RunStatus
  readonly mode?: Run['mode']
  readonly engine?: string
  readonly includeDeleted?: boolean
  /** ISO-8601 bounds on created_at: since inclusive, until exclusive. */
  readonly since?: string
  readonly until?: string
  readonly limit?: number
  readonly offset?: number
}

/**
 * A run as a list shows it: ids, status, the target's names, progress and the winner's value,
 * without the summary and the full specs (a full row is several KB of JSON to read and parse).
 */
export interface RunBrief {
  readonly id: string
  readonly status: RunStatus
  readonly mode: Run['mode']
  readonly backend: string
  readonly qualityGate: Run['qualityGate']
  readonly progress: { done: number; total: number }
  readonly error: string | null
  readonly createdAt: string
  readonly updatedAt: string
  /** A name the run's target does not carry is left out, as the full row would. */
  readonly target: { engine: string; engineVersion?: string; model: { name?: string }; hardware: { name?: string } }
  readonly winner: { value: number | null; improvement: number | null } | null
}

/**
 * The process measuring a run outside a server's queue (a `kerneltune sweep`): `id` is its claim
 * (compared and set atomically), pid and host say where it runs, heartbeatAt when it last said it
 * was alive.
 */
export interface RunOwner {
  readonly id: string
  readonly pid: number
  readonly host: string
  readonly startedAt: string
  readonly heartbeatAt: string
}

export type ComboResult = Pick<RunCombo, 'status' | 'simulated' | 'cached' | 'repetitions' | 'metrics' | 'comparison' | 'error' | 'kernels'>

function toRun(r: Row): Run {
  return {
    id: String(r.id),
    tenant: String(r.tenant),
    status: r.status as Run['status'],
    mode: r.mode as Run['mode'],
    target: fromJson(r.target),
    snapshotHash: String(r.snapshot_hash),
    catalogVersion: String(r.catalog_version),
    qualityGate: r.quality_gate as Run['qualityGate'],
    backend: String(r.backend),
    repetitions: Number(r.repetitions),
    progress: { done: Number(r.progress_done), total: Number(r.progress_total) },
    summary: fromJson(r.summary),
    error: (r.error as string | null) ?? null,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    deletedAt: (r.deleted_at as string | null) ?? null,
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

function toBrief(r: Row): RunBrief {
  return {
    id: String(r.id),
    status: r.status as RunStatus,
    mode: r.mode as Run['mode'],
    backend: String(r.backend),
    qualityGate: r.quality_gate as Run['qualityGate'],
    progress: { done: Number(r.progress_done), total: Number(r.progress_total) },
    error: (r.error as string | null) ?? null,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    target: {
      engine: String(r.engine),
      ...(r.engine_version != null ? { engineVersion: String(r.engine_version) } : {}),
      model: r.model_name != null ? { name: String(r.model_name) } : {},
      hardware: r.hardware_name != null ? { name: String(r.hardware_name) } : {},
    },
    // A summary's winner always carries its value (a number), so no value means no winner.
    winner: r.winner_value != null ? { value: Number(r.winner_value), improvement: num(r.winner_improvement) } : null,
  }
}

/** What a list row shows: short columns (migration 6 keeps them beside the JSON), no document parsed. */
const BRIEF_COLUMNS = 'id, status, mode, backend, quality_gate, progress_done, progress_total, error, created_at, updated_at, engine, engine_version, model_name, hardware_name, winner_value, winner_improvement'

function toCombo(r: Row): RunCombo {
  return {
    runId: String(r.run_id),
    index: Number(r.idx),
    comboHash: String(r.combo_hash),
    combo: fromJson(r.combo),
    status: r.status as RunCombo['status'],
    simulated: bool(r.simulated),
    cached: bool(r.cached),
    isBaseline: bool(r.is_baseline),
    repetitions: fromJson(r.repetitions) ?? [],
    metrics: fromJson(r.metrics),
    comparison: fromJson(r.comparison),
    gate: fromJson(r.gate),
    error: (r.error as string | null) ?? null,
    ...(r.kernels ? { kernels: fromJson(r.kernels) } : {}),
  }
}

/** The WHERE clause both list forms share; tenant and deleted_at lead, as in the list index. */
function listWhere(tenant: string | null, filter: RunFilter): { clause: string; params: (string | number)[] } {
  const where: string[] = []
  const params: (string | number)[] = []
  if (tenant !== null) (where.push('tenant = ?'), params.push(tenant))
  if (!filter.includeDeleted) where.push('deleted_at IS NULL')
  if (filter.status) (where.push('status = ?'), params.push(filter.status))
  if (filter.mode) (where.push('mode = ?'), params.push(filter.mode))
  if (filter.engine) (where.push('engine = ?'), params.push(filter.engine))
  if (filter.since) (where.push('created_at >= ?'), params.push(filter.since))
  if (filter.until) (where.push('created_at < ?'), params.push(filter.until))
  return { clause: where.length ? `WHERE ${where.join(' AND ')}` : '', params }
}

async function putSnapshot(tx: SqlExecutor, s: SnapshotInput): Promise<void> {
  const found = await tx.query('SELECT hash FROM kernel_catalog_snapshots WHERE hash = ?', [s.hash])
  if (!found.length) {
    await tx.run('INSERT INTO kernel_catalog_snapshots (hash, version, content, created_at) VALUES (?, ?, ?, ?)', [
      s.hash, s.version, JSON.stringify(s.content), now(),
    ])
  }
}

export function runsRepo(db: SqlDriver): RunsRepo {
  return {
    async snapshot(hash: string): Promise<{ hash: string; version: string; content: unknown } | undefined> {
      const rows = await db.query('SELECT * FROM kernel_catalog_snapshots WHERE hash = ?', [hash])
      const r = rows[0]
      return r ? { hash: String(r.hash), version: String(r.version), content: fromJson(r.content) } : undefined
    },

    /** Creates a run, binds it to its catalog snapshot and enumerates its combinations: all or nothing. */
    async create(input: NewRun): Promise<Run> {
      const id = newId()
      const t = now()
      await db.transaction(async (tx) => {
        await putSnapshot(tx, input.snapshot)
        await tx.run(
          `INSERT INTO kernel_runs (id, tenant, status, mode, target, engine, engine_version, model_name, hardware_name, snapshot_hash, catalog_version, quality_gate,
            backend, repetitions, progress_done, progress_total, summary, error, created_at, updated_at, deleted_at)
           VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL, NULL, ?, ?, NULL)`,
          [id, input.tenant, input.mode, JSON.stringify(input.target), input.target.engine, input.target.engineVersion ?? null,
            (input.target.model as { name?: string }).name ?? null, (input.target.hardware as { name?: string }).name ?? null, input.snapshot.hash,
            input.snapshot.version, input.qualityGate, input.backend, input.repetitions, input.combos.length, t, t],
        )
        let idx = 0
        for (const c of input.combos) {
          await tx.run(
            `INSERT INTO kernel_run_combos (run_id, idx, combo_hash, combo, status, simulated, cached, is_baseline, repetitions)
             VALUES (?, ?, ?, ?, 'pending', 0, 0, ?, '[]')`,
            [id, idx++, c.comboHash, JSON.stringify(c.combo), c.isBaseline ? 1 : 0],
          )
        }
      })
      return (await this.get(input.tenant, id))!
    },

    async get(tenant: string | null, id: string, includeDeleted = false): Promise<Run | undefined> {
      const rows = await db.query('SELECT * FROM kernel_runs WHERE id = ?', [id])
      const r = rows[0]
      if (!r || (tenant !== null && r.tenant !== tenant) || (!includeDeleted && r.deleted_at)) return undefined
      return toRun(r)
    },

    async require(tenant: string | null, id: string): Promise<Run> {
      const run = await this.get(tenant, id)
      if (!run) throw notFound('run', id)
      return run
    },

    async list(tenant: string | null, filter: RunFilter = {}): Promise<{ items: Run[]; total: number }> {
      const { clause, params } = listWhere(tenant, filter)
      const total = await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM kernel_runs ${clause}`, params)
      const rows = await db.query(`SELECT * FROM kernel_runs ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
        ...params, filter.limit ?? 50, filter.offset ?? 0,
      ])
      return { items: rows.map(toRun), total: Number(total[0]?.n ?? 0) }
    },

    async listBrief(tenant: string | null, filter: RunFilter = {}): Promise<{ items: RunBrief[]; total: number }> {
      const { clause, params } = listWhere(tenant, filter)
      // The count rides along as an uncorrelated subquery (evaluated once, on the index): one round
      // trip per page instead of two. A page past the end has no row to carry it, so it asks apart.
      const rows = await db.query(`SELECT (SELECT COUNT(*) FROM kernel_runs ${clause}) AS total, ${BRIEF_COLUMNS} FROM kernel_runs ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
        ...params, ...params, filter.limit ?? 50, filter.offset ?? 0,
      ])
      const total = rows.length ? Number(rows[0]!.total) : Number((await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM kernel_runs ${clause}`, params))[0]?.n ?? 0)
      return { items: rows.map(toBrief), total }
    },

    async combos(runId: string): Promise<RunCombo[]> {
      return (await db.query('SELECT * FROM kernel_run_combos WHERE run_id = ? ORDER BY idx', [runId])).map(toCombo)
    },

    async setStatus(id: string, status: RunStatus, error: string | null = null): Promise<void> {
      await db.run('UPDATE kernel_runs SET status = ?, error = ?, updated_at = ? WHERE id = ?', [status, error, now(), id])
    },

    /** Stores one combination's result and advances the run's progress in the same transaction. */
    async recordCombo(runId: string, index: number, result: ComboResult): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.run(
          `UPDATE kernel_run_combos SET status = ?, simulated = ?, cached = ?, repetitions = ?, metrics = ?, comparison = ?, error = ?, kernels = ?
           WHERE run_id = ? AND idx = ?`,
          [result.status, result.simulated ? 1 : 0, result.cached ? 1 : 0, JSON.stringify(result.repetitions),
            toJson(result.metrics), toJson(result.comparison), result.error, toJson(result.kernels ?? null), runId, index],
        )
        await tx.run(
          `UPDATE kernel_runs SET progress_done = (SELECT COUNT(*) FROM kernel_run_combos WHERE run_id = ? AND status <> 'pending'),
           updated_at = ? WHERE id = ?`,
          [runId, now(), runId],
        )
      })
    },

    /**
     * recordCombo for distributed workers: stores the result only while the combination is still
     * pending, in one transaction, and says whether it did. A job retried after a worker vanished
     * (or delivered twice) can then never store a second result for the same (run, combination).
     */
    async recordComboOnce(runId: string, index: number, result: ComboResult): Promise<boolean> {
      return db.transaction(async (tx) => {
        const { changes } = await tx.run(
          `UPDATE kernel_run_combos SET status = ?, simulated = ?, cached = ?, repetitions = ?, metrics = ?, comparison = ?, error = ?, kernels = ?
           WHERE run_id = ? AND idx = ? AND status = 'pending'`,
          [result.status, result.simulated ? 1 : 0, result.cached ? 1 : 0, JSON.stringify(result.repetitions),
            toJson(result.metrics), toJson(result.comparison), result.error, toJson(result.kernels ?? null), runId, index],
        )
        if (changes === 0) return false
        // An increment, not a recount: concurrent workers' transactions (PostgreSQL, read committed)
        // cannot see each other's combination rows, so recounts lose results; the row lock on the
        // run serialises increments, and only a transaction that stored a result gets here.
        await tx.run('UPDATE kernel_runs SET progress_done = progress_done + 1, updated_at = ? WHERE id = ?', [now(), runId])
        return true
      })
    },

    /** Writes the gate verdicts and the summary, and sets the final status, together. */
    async finish(runId: string, status: RunStatus, summary: unknown, gates: ReadonlyMap<number, { passed: boolean; reasons: string[] }>, error: string | null = null): Promise<void> {
      await db.transaction(async (tx) => {
        for (const [idx, gate] of gates) {
          await tx.run('UPDATE kernel_run_combos SET gate = ? WHERE run_id = ? AND idx = ?', [JSON.stringify(gate), runId, idx])
        }
        const winner = (summary as { winner?: { value?: unknown; improvement?: unknown } | null } | null)?.winner
        const finite = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
        await tx.run('UPDATE kernel_runs SET status = ?, summary = ?, error = ?, winner_value = ?, winner_improvement = ?, updated_at = ? WHERE id = ?', [
          status, toJson(summary), error, finite(winner?.value), finite(winner?.improvement), now(), runId,
        ])
      })
    },

    async owner(id: string): Promise<RunOwner | null> {
      const rows = await db.query('SELECT owner FROM kernel_runs WHERE id = ?', [id])
      return rows[0] ? (fromJson<RunOwner | null>(rows[0].owner) ?? null) : null
    },

    async claim(id: string, owner: RunOwner, previous: string | null): Promise<boolean> {
      // Compare-and-set on the claim: of two processes resuming one run, one wins.
      const sql = `UPDATE kernel_runs SET owner_id = ?, owner = ?, updated_at = ? WHERE id = ? AND ${previous === null ? 'owner_id IS NULL' : 'owner_id = ?'}`
      const { changes } = await db.run(sql, [owner.id, JSON.stringify(owner), now(), id, ...(previous === null ? [] : [previous])])
      return changes > 0
    },

    async heartbeat(id: string, owner: RunOwner): Promise<boolean> {
      const { changes } = await db.run('UPDATE kernel_runs SET owner = ? WHERE id = ? AND owner_id = ?', [JSON.stringify(owner), id, owner.id])
      return changes > 0
    },

    async release(id: string, ownerId: string): Promise<void> {
      await db.run('UPDATE kernel_runs SET owner_id = NULL, owner = NULL WHERE id = ? AND owner_id = ?', [id, ownerId])
    },

    async softDelete(tenant: string | null, id: string): Promise<void> {
      await this.require(tenant, id)
      await db.run('UPDATE kernel_runs SET deleted_at = ?, updated_at = ? WHERE id = ?', [now(), now(), id])
    },
  }
}
/** What runsRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface RunsRepo {
  snapshot(hash: string): Promise<{ hash: string; version: string; content: unknown } | undefined>
  /** Creates a run, binds it to its catalog snapshot and enumerates its combinations: all or nothing. */
  create(input: NewRun): Promise<Run>
  get(tenant: string | null, id: string, includeDeleted?: boolean): Promise<Run | undefined>
  require(tenant: string | null, id: string): Promise<Run>
  list(tenant: string | null, filter?: RunFilter): Promise<{ items: Run[]; total: number }>
  /** The same rows and total as list(), in the brief form a list page shows. */
  listBrief(tenant: string | null, filter?: RunFilter): Promise<{ items: RunBrief[]; total: number }>
  combos(runId: string): Promise<RunCombo[]>
  setStatus(id: string, status: RunStatus, error?: string | null): Promise<void>
  /** Stores one combination's result and advances the run's progress in the same transaction. */
  recordCombo(runId: string, index: number, result: ComboResult): Promise<void>
  /**
   * recordCombo for distributed workers: stores the result only while the combination is still
   * pending, in one transaction, and says whether it did. A job retried after a worker vanished
   * (or delivered twice) can then never store a second result for the same (run, combination).
   */
  recordComboOnce(runId: string, index: number, result: ComboResult): Promise<boolean>
  /** Writes the gate verdicts and the summary, and sets the final status, together. */
  finish(runId: string, status: RunStatus, summary: unknown, gates: ReadonlyMap<number, { passed: boolean; reasons: string[] }>, error?: string | null): Promise<void>
  softDelete(tenant: string | null, id: string): Promise<void>
  /** The process that claimed the run, if one has and has not released it. */
  owner(id: string): Promise<RunOwner | null>
  /** Claims the run for `owner` if its current claim is `previous` (null: unclaimed); says whether it did. */
  claim(id: string, owner: RunOwner, previous: string | null): Promise<boolean>
  /** Refreshes the owner's heartbeat while it still holds the claim; false once another took it. */
  heartbeat(id: string, owner: RunOwner): Promise<boolean>
  /** Drops the claim `ownerId` holds (no-op when another holds it). */
  release(id: string, ownerId: string): Promise<void>
}
