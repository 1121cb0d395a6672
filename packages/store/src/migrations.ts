/**
 * Versioned migrations. Each runs in its own transaction and is recorded in
 * `schema_migrations`; a database is brought up to date by `migrate`. Never edit a released
 * migration: add a new one.
 */
import type { SqlDriver } from './driver.ts'

export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: readonly string[]
  /** Statements whose SQL differs by dialect (JSON access), run after `statements`. */
  readonly byDialect?: { readonly sqlite: readonly string[]; readonly postgres: readonly string[] }
}

const JSON_TEXT = 'TEXT'

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'l1 kernel tuning: snapshots, runs, combos, tune sessions, registry',
    statements: [
      `CREATE TABLE kernel_catalog_snapshots (
        hash TEXT PRIMARY KEY, version TEXT NOT NULL, content ${JSON_TEXT} NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE kernel_runs (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL, status TEXT NOT NULL, mode TEXT NOT NULL,
        target ${JSON_TEXT} NOT NULL, engine TEXT NOT NULL,
        snapshot_hash TEXT NOT NULL REFERENCES kernel_catalog_snapshots(hash), catalog_version TEXT NOT NULL,
        quality_gate TEXT NOT NULL, backend TEXT NOT NULL, repetitions INTEGER NOT NULL,
        progress_done INTEGER NOT NULL, progress_total INTEGER NOT NULL,
        summary ${JSON_TEXT}, error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT)`,
      'CREATE INDEX kernel_runs_tenant_created ON kernel_runs (tenant, created_at)',
      `CREATE TABLE kernel_run_combos (
        run_id TEXT NOT NULL REFERENCES kernel_runs(id), idx INTEGER NOT NULL, combo_hash TEXT NOT NULL,
        combo ${JSON_TEXT} NOT NULL, status TEXT NOT NULL, simulated INTEGER NOT NULL, cached INTEGER NOT NULL,
        is_baseline INTEGER NOT NULL, repetitions ${JSON_TEXT} NOT NULL, metrics ${JSON_TEXT},
        comparison ${JSON_TEXT}, gate ${JSON_TEXT}, error TEXT, PRIMARY KEY (run_id, idx))`,
      `CREATE TABLE kernel_tune_sessions (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL, run_id TEXT NOT NULL REFERENCES kernel_runs(id),
        status TEXT NOT NULL, strategy TEXT NOT NULL, budget ${JSON_TEXT} NOT NULL, narrowing ${JSON_TEXT} NOT NULL,
        bayesian_state ${JSON_TEXT}, trials_done INTEGER NOT NULL, elapsed_ms DOUBLE PRECISION NOT NULL,
        best ${JSON_TEXT}, error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE TABLE kernel_tune_trials (
        session_id TEXT NOT NULL REFERENCES kernel_tune_sessions(id), idx INTEGER NOT NULL,
        config ${JSON_TEXT} NOT NULL, outcome TEXT NOT NULL, value DOUBLE PRECISION, metrics ${JSON_TEXT},
        created_at TEXT NOT NULL, PRIMARY KEY (session_id, idx))`,
      `CREATE TABLE l1_kernel_registry (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL, name TEXT NOT NULL, kernel_family TEXT NOT NULL,
        provider TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL, metadata ${JSON_TEXT} NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE TABLE l1_kernel_registry_approvals (
        id TEXT PRIMARY KEY, entry_id TEXT NOT NULL REFERENCES l1_kernel_registry(id), action TEXT NOT NULL,
        actor TEXT NOT NULL, reason TEXT, created_at TEXT NOT NULL)`,
    ],
  },
  {
    version: 2,
    name: 'result cache, api tokens, deployments and calibration runs',
    statements: [
      `CREATE TABLE result_cache (
        cache_key TEXT PRIMARY KEY, catalog_version TEXT NOT NULL, engine TEXT NOT NULL, engine_version TEXT NOT NULL,
        value ${JSON_TEXT} NOT NULL, created_at TEXT NOT NULL, expires_at BIGINT NOT NULL)`,
      `CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, tenant TEXT NOT NULL,
        label TEXT, created_at TEXT NOT NULL, revoked_at TEXT)`,
      `CREATE TABLE deployments (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL, name TEXT NOT NULL, engine TEXT NOT NULL,
        engine_version TEXT NOT NULL, current_combo ${JSON_TEXT}, run_id TEXT, created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)`,
      `CREATE TABLE calibration_runs (
        id TEXT PRIMARY KEY, deployment_id TEXT NOT NULL REFERENCES deployments(id),
        predicted_tps DOUBLE PRECISION NOT NULL, measured_tps DOUBLE PRECISION NOT NULL, created_at TEXT NOT NULL)`,
    ],
  },
  {
    version: 3,
    name: 'tenant-scoped result cache; the bootstrap token becomes the superadmin',
    statements: [
      // Entries stored before keys carried the tenant and the measuring device cannot be
      // attributed to either, so they are dropped rather than served to the wrong tenant.
      'DELETE FROM result_cache',
      "ALTER TABLE result_cache ADD COLUMN tenant TEXT NOT NULL DEFAULT ''",
      'CREATE INDEX result_cache_tenant ON result_cache (tenant)',
      "UPDATE api_tokens SET role = 'superadmin' WHERE role = 'admin' AND label = 'bootstrap admin'",
    ],
  },
  {
    version: 4,
    name: 'registry kernels a combination selected or excluded (Tier 3 kernels in runs)',
    statements: [`ALTER TABLE kernel_run_combos ADD COLUMN kernels ${JSON_TEXT}`],
  },
  {
    version: 5,
    name: 'run lists served from one index: tenant, live rows, newest first (count and page without reading rows)',
    // The lists filter on tenant and deleted_at and order by (created_at, id): with all four in one
    // index the page is an index walk and COUNT(*) never reads the wide rows (target, summary).
    // It covers everything the old (tenant, created_at) index served, so that one goes.
    statements: [
      'CREATE INDEX kernel_runs_tenant_live_created ON kernel_runs (tenant, deleted_at, created_at, id)',
      'DROP INDEX kernel_runs_tenant_created',
    ],
  },
  {
    version: 6,
    name: 'run list columns: engine version, model and hardware names, the winner\'s value and improvement',
    // What a list row shows, kept beside the JSON it comes from (written by create and finish), so
    // that a list page reads short columns and parses no JSON document.
    statements: [
      'ALTER TABLE kernel_runs ADD COLUMN engine_version TEXT',
      'ALTER TABLE kernel_runs ADD COLUMN model_name TEXT',
      'ALTER TABLE kernel_runs ADD COLUMN hardware_name TEXT',
      'ALTER TABLE kernel_runs ADD COLUMN winner_value DOUBLE PRECISION',
      'ALTER TABLE kernel_runs ADD COLUMN winner_improvement DOUBLE PRECISION',
    ],
    byDialect: {
      sqlite: [`UPDATE kernel_runs SET engine_version = json_extract(target, '$.engineVersion'), model_name = json_extract(target, '$.model.name'),
        hardware_name = json_extract(target, '$.hardware.name'), winner_value = json_extract(summary, '$.winner.value'),
        winner_improvement = json_extract(summary, '$.winner.improvement')`],
      postgres: [`UPDATE kernel_runs SET engine_version = target::jsonb #>> '{engineVersion}', model_name = target::jsonb #>> '{model,name}',
        hardware_name = target::jsonb #>> '{hardware,name}', winner_value = (summary::jsonb #>> '{winner,value}')::double precision,
        winner_improvement = (summary::jsonb #>> '{winner,improvement}')::double precision`],
    },
  },
  {
    version: 7,
    name: 'api tokens: who minted each, whom it acts for, expiry, last use; the token audit log',
    // minted_by is the id of the token that minted it, or '(store)' for one written straight into the
    // store (the bootstrap token, the embedded CLI). Tokens minted before this migration keep NULL:
    // their minter is unknown, so four-eyes approval treats them as possibly the submitter's and
    // refuses them (registry.ts); the bootstrap token is the one whose origin is known.
    statements: [
      'ALTER TABLE api_tokens ADD COLUMN minted_by TEXT',
      'ALTER TABLE api_tokens ADD COLUMN acts_for TEXT',
      'ALTER TABLE api_tokens ADD COLUMN expires_at TEXT',
      'ALTER TABLE api_tokens ADD COLUMN last_used_at TEXT',
      "UPDATE api_tokens SET minted_by = '(store)' WHERE role = 'superadmin' AND label = 'bootstrap admin'",
      `CREATE TABLE api_token_events (
        id TEXT PRIMARY KEY, token_id TEXT NOT NULL, tenant TEXT NOT NULL, action TEXT NOT NULL,
        actor TEXT NOT NULL, detail ${JSON_TEXT}, created_at TEXT NOT NULL)`,
      'CREATE INDEX api_token_events_tenant ON api_token_events (tenant, created_at)',
    ],
  },
  {
    version: 8,
    name: 'deployments served through `kerneltune gateway`: the gateway\'s settings and state, per-arm statistics, routing decisions',
    statements: [
      `ALTER TABLE deployments ADD COLUMN gateway ${JSON_TEXT}`,
      `CREATE TABLE deployment_arms (
        deployment_id TEXT NOT NULL REFERENCES deployments(id), arm TEXT NOT NULL, combo ${JSON_TEXT}, stats ${JSON_TEXT} NOT NULL,
        updated_at TEXT NOT NULL, PRIMARY KEY (deployment_id, arm))`,
      `CREATE TABLE deployment_decisions (
        deployment_id TEXT NOT NULL REFERENCES deployments(id), seq INTEGER NOT NULL, at TEXT NOT NULL, arm TEXT NOT NULL,
        reason TEXT NOT NULL, ok INTEGER NOT NULL, met INTEGER NOT NULL, reward DOUBLE PRECISION NOT NULL,
        ttft_ms DOUBLE PRECISION, tpot_ms DOUBLE PRECISION, PRIMARY KEY (deployment_id, seq))`,
    ],
  },
  {
    version: 9,
    name: 'the process measuring a run (a `kerneltune sweep`): its claim, pid, host and heartbeat, so a run left running by a dead process can be told from a live one and resumed',
    statements: [
      'ALTER TABLE kernel_runs ADD COLUMN owner_id TEXT',
      `ALTER TABLE kernel_runs ADD COLUMN owner ${JSON_TEXT}`,
    ],
  },
]

/** Applies every pending migration, in order; returns the versions it applied. */
export async function migrate(driver: SqlDriver, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await driver.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  )
  const applied: number[] = []
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await driver.query('SELECT version FROM schema_migrations WHERE version = ?', [m.version])
    if (done.length) continue
    try {
      await driver.transaction(async (tx) => {
        // Claim the version first: a second process migrating at the same time fails here and
        // rolls back instead of running the statements twice.
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, new Date().toISOString()])
        for (const sql of m.statements) await tx.run(sql)
        for (const sql of m.byDialect?.[driver.dialect] ?? []) await tx.run(sql)
      })
      applied.push(m.version)
    } catch (err) {
      const again = await driver.query('SELECT version FROM schema_migrations WHERE version = ?', [m.version])
      if (!again.length) throw err
    }
  }
  return applied
}

export async function schemaVersion(driver: SqlDriver): Promise<number> {
  const rows = await driver.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations')
  return Number(rows[0]?.v ?? 0)
}
