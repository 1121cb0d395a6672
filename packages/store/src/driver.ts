/**
 * The SQL seam. The store is written once against this interface; SQLite (libsql) and
 * PostgreSQL (pg) implement it. SQL is written with `?` placeholders and portable types (TEXT
 * for JSON and timestamps, INTEGER/BIGINT, DOUBLE PRECISION); the PostgreSQL driver rewrites
 * placeholders to `$n`.
 */
export type SqlValue = string | number | boolean | null
export type Row = Record<string, unknown>

export interface SqlExecutor {
  query<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>
}

export interface SqlDriver extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres'
  /** Runs `fn` in one transaction: every write in it lands, or none does. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** Converts `?` placeholders to PostgreSQL's `$1, $2, ...` (outside quoted strings). */
export function toDollarParams(sql: string): string {
  let n = 0
  let out = ''
  let quoted = false
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted
    out += ch === '?' && !quoted ? `$${++n}` : ch
  }
  return out
}
