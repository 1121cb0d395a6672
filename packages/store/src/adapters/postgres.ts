import { toDollarParams, type Row, type SqlDriver, type SqlExecutor, type SqlValue } from '../driver.ts'

interface PgQueryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>
}

function executor(target: PgQueryable): SqlExecutor {
  return {
    async query<T extends Row>(sql: string, params: readonly SqlValue[] = []) {
      const rs = await target.query(toDollarParams(sql), [...params])
      return rs.rows as T[]
    },
    async run(sql, params = []) {
      const rs = await target.query(toDollarParams(sql), [...params])
      return { changes: rs.rowCount ?? 0 }
    },
  }
}

/** PostgreSQL through `pg`, for a `postgres://` or `postgresql://` URL. */
export async function createPostgresDriver(url: string): Promise<SqlDriver> {
  const pg = (await import('pg')).default
  // BIGINT (int8) arrives as a string by default; every count and millisecond value here fits
  // in a double, so read it as a number.
  pg.types.setTypeParser(20, (v: string) => Number(v))
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  await pool.query('SELECT 1')
  return {
    dialect: 'postgres',
    ...executor(pool),
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn(executor(client))
        await client.query('COMMIT')
        return result
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      } finally {
        client.release()
      }
    },
    close: () => pool.end(),
  }
}
