/**
 * Deployments: what combination each one runs, and calibration runs (predicted against measured
 * throughput) from which drift is computed with the seed's bands: minor 5–15%, significant >15%.
 */
import type { Combo } from '@kerneltune/core'
import type { SqlDriver } from '../driver.ts'
import { fromJson, newId, notFound, now } from '../util.ts'

export interface Deployment {
  readonly id: string
  readonly tenant: string
  readonly name: string
  readonly engine: string
  readonly engineVersion: string
  readonly currentCombo: Combo | null
  readonly runId: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

export type DriftBand = 'none' | 'minor' | 'significant' | 'unknown'

/** The seed's bands on |measured − predicted| / predicted. */
export function driftBand(relative: number | null): DriftBand {
  if (relative === null || !Number.isFinite(relative)) return 'unknown'
  const r = Math.abs(relative)
  if (r > 0.15) return 'significant'
  if (r >= 0.05) return 'minor'
  return 'none'
}

const toDeployment = (r: Record<string, unknown>): Deployment => ({
  id: String(r.id), tenant: String(r.tenant), name: String(r.name), engine: String(r.engine),
  engineVersion: String(r.engine_version), currentCombo: fromJson(r.current_combo), runId: (r.run_id as string | null) ?? null,
  createdAt: String(r.created_at), updatedAt: String(r.updated_at),
})

export function deploymentsRepo(db: SqlDriver): DeploymentsRepo {
  const repo = {
    async create(input: { tenant: string; name: string; engine: string; engineVersion: string; id?: string }): Promise<Deployment> {
      const id = input.id ?? newId()
      const t = now()
      await db.run(
        'INSERT INTO deployments (id, tenant, name, engine, engine_version, current_combo, run_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?)',
        [id, input.tenant, input.name, input.engine, input.engineVersion, t, t],
      )
      return (await repo.get(input.tenant, id))!
    },
    async get(tenant: string | null, id: string): Promise<Deployment | undefined> {
      const r = (await db.query('SELECT * FROM deployments WHERE id = ?', [id]))[0]
      if (!r || (tenant !== null && r.tenant !== tenant)) return undefined
      return toDeployment(r)
    },
    async require(tenant: string | null, id: string): Promise<Deployment> {
      const d = await repo.get(tenant, id)
      if (!d) throw notFound('deployment', id)
      return d
    },
    /** Deployments updated (applied to, or calibrated) since `since`, newest first. */
    async recent(tenant: string | null, since: string, limit = 50): Promise<Deployment[]> {
      const rows = tenant === null
        ? await db.query('SELECT * FROM deployments WHERE updated_at >= ? ORDER BY updated_at DESC LIMIT ?', [since, limit])
        : await db.query('SELECT * FROM deployments WHERE tenant = ? AND updated_at >= ? ORDER BY updated_at DESC LIMIT ?', [tenant, since, limit])
      return rows.map(toDeployment)
    },
    async applyCombo(tenant: string | null, id: string, combo: Combo, runId: string | null): Promise<Deployment> {
      await repo.require(tenant, id)
      await db.run('UPDATE deployments SET current_combo = ?, run_id = ?, updated_at = ? WHERE id = ?', [JSON.stringify(combo), runId, now(), id])
      return (await repo.get(tenant, id))!
    },
    async recordCalibration(tenant: string | null, id: string, predictedTps: number, measuredTps: number): Promise<void> {
      await repo.require(tenant, id)
      await db.transaction(async (tx) => {
        await tx.run('INSERT INTO calibration_runs (id, deployment_id, predicted_tps, measured_tps, created_at) VALUES (?, ?, ?, ?, ?)', [
          newId(), id, predictedTps, measuredTps, now(),
        ])
        await tx.run('UPDATE deployments SET updated_at = ? WHERE id = ?', [now(), id])
      })
    },
    /** Drift from the latest calibration run: relative error of measured against predicted. */
    async drift(tenant: string | null, id: string): Promise<{ deploymentId: string; predictedTps: number | null; measuredTps: number | null; relative: number | null; band: DriftBand; at: string | null }> {
      await repo.require(tenant, id)
      const r = (await db.query<{ predicted_tps: number; measured_tps: number; created_at: string }>(
        'SELECT predicted_tps, measured_tps, created_at FROM calibration_runs WHERE deployment_id = ? ORDER BY created_at DESC, id DESC LIMIT 1', [id],
      ))[0]
      if (!r) return { deploymentId: id, predictedTps: null, measuredTps: null, relative: null, band: 'unknown', at: null }
      const p = Number(r.predicted_tps)
      const m = Number(r.measured_tps)
      const relative = p > 0 ? (m - p) / p : null
      return { deploymentId: id, predictedTps: p, measuredTps: m, relative, band: driftBand(relative), at: String(r.created_at) }
    },
  }
  return repo
}
/** What deploymentsRepo() returns; spelled out so that JSR can publish the package without slow types. */
export interface DeploymentsRepo {
  create(input: { tenant: string; name: string; engine: string; engineVersion: string; id?: string }): Promise<Deployment>
  get(tenant: string | null, id: string): Promise<Deployment | undefined>
  require(tenant: string | null, id: string): Promise<Deployment>
  /** Deployments updated (applied to, or calibrated) since `since`, newest first. */
  recent(tenant: string | null, since: string, limit?: number): Promise<Deployment[]>
  applyCombo(tenant: string | null, id: string, combo: Combo, runId: string | null): Promise<Deployment>
  recordCalibration(tenant: string | null, id: string, predictedTps: number, measuredTps: number): Promise<void>
  /** Drift from the latest calibration run: relative error of measured against predicted. */
  drift(tenant: string | null, id: string): Promise<{
    deploymentId: string
    predictedTps: number | null
    measuredTps: number | null
    relative: number | null
    band: DriftBand
    at: string | null
  }>
}
