/**
 * Deployments: what combination each one runs, and calibration runs (predicted against measured
 * throughput) from which drift is computed with the seed's bands: minor 5–15%, significant >15%.
 */
import type { Combo } from '@kerneltune/core'
import type { SqlDriver } from '../driver.ts'
import { bool, fromJson, newId, notFound, now, toJson } from '../util.ts'

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

/** One arm of a deployment served through the gateway: its combination and its statistics (requests, misses, share, posterior…). */
export interface GatewayArmRow {
  readonly arm: string
  readonly combo: Combo | null
  readonly stats: Readonly<Record<string, unknown>>
}

/** One routing decision: which arm answered a request, why, and what the request experienced. */
export interface GatewayDecisionRow {
  /** The gateway's request number (unique per deployment). */
  readonly seq: number
  readonly at: string
  readonly arm: string
  readonly reason: string
  readonly ok: boolean
  readonly met: boolean
  readonly reward: number
  readonly ttftMs: number | null
  readonly tpotMs: number | null
}

export interface GatewayState {
  readonly deploymentId: string
  /** The gateway's settings and state: policy, objectives, url, running or stopped, totals. */
  readonly gateway: Readonly<Record<string, unknown>>
  readonly arms: readonly GatewayArmRow[]
  /** The most recent decisions, newest first. */
  readonly decisions: readonly GatewayDecisionRow[]
  readonly decisionCount: number
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
    /**
     * A gateway's state: its settings, every arm's statistics (replaced), new decisions (appended),
     * and the combination it runs now (the arm with the most traffic), in one transaction.
     */
    async recordGateway(tenant: string | null, id: string, input: { gateway: Record<string, unknown>; arms: readonly GatewayArmRow[]; decisions: readonly GatewayDecisionRow[]; currentCombo?: Combo | null }): Promise<void> {
      await repo.require(tenant, id)
      const t = now()
      await db.transaction(async (tx) => {
        await tx.run('DELETE FROM deployment_arms WHERE deployment_id = ?', [id])
        for (const a of input.arms) await tx.run('INSERT INTO deployment_arms (deployment_id, arm, combo, stats, updated_at) VALUES (?, ?, ?, ?, ?)', [id, a.arm, toJson(a.combo), JSON.stringify(a.stats), t])
        for (const d of input.decisions) {
          await tx.run('INSERT INTO deployment_decisions (deployment_id, seq, at, arm, reason, ok, met, reward, ttft_ms, tpot_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
            id, d.seq, d.at, d.arm, d.reason, d.ok ? 1 : 0, d.met ? 1 : 0, d.reward, d.ttftMs, d.tpotMs,
          ])
        }
        if (input.currentCombo !== undefined) await tx.run('UPDATE deployments SET gateway = ?, current_combo = ?, updated_at = ? WHERE id = ?', [JSON.stringify(input.gateway), toJson(input.currentCombo), t, id])
        else await tx.run('UPDATE deployments SET gateway = ?, updated_at = ? WHERE id = ?', [JSON.stringify(input.gateway), t, id])
      })
    },
    /** The gateway state of a deployment, with its `recent` latest decisions; null for a deployment never served through the gateway. */
    async gateway(tenant: string | null, id: string, recent = 50): Promise<GatewayState | null> {
      const d = await repo.require(tenant, id)
      const row = (await db.query('SELECT gateway FROM deployments WHERE id = ?', [id]))[0]
      const gateway = fromJson<Record<string, unknown> | null>(row?.gateway)
      if (!gateway) return null
      const arms = (await db.query('SELECT arm, combo, stats FROM deployment_arms WHERE deployment_id = ? ORDER BY arm', [id]))
        .map((r) => ({ arm: String(r.arm), combo: fromJson<Combo | null>(r.combo), stats: fromJson<Record<string, unknown>>(r.stats) }))
      const decisions = (await db.query('SELECT * FROM deployment_decisions WHERE deployment_id = ? ORDER BY seq DESC LIMIT ?', [id, recent])).map((r) => ({
        seq: Number(r.seq), at: String(r.at), arm: String(r.arm), reason: String(r.reason), ok: bool(r.ok), met: bool(r.met), reward: Number(r.reward),
        ttftMs: r.ttft_ms == null ? null : Number(r.ttft_ms), tpotMs: r.tpot_ms == null ? null : Number(r.tpot_ms),
      }))
      const n = Number((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM deployment_decisions WHERE deployment_id = ?', [id]))[0]?.n ?? 0)
      return { deploymentId: id, gateway, arms, decisions, decisionCount: n, updatedAt: d.updatedAt }
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
  recordGateway(tenant: string | null, id: string, input: { gateway: Record<string, unknown>; arms: readonly GatewayArmRow[]; decisions: readonly GatewayDecisionRow[]; currentCombo?: Combo | null }): Promise<void>
  gateway(tenant: string | null, id: string, recent?: number): Promise<GatewayState | null>
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
