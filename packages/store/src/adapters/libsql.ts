import type { Client, InValue, Transaction } from '@libsql/client'
import type { Row, SqlDriver, SqlExecutor, SqlValue } from '../driver.ts'

function executor(target: Client | Transaction): SqlExecutor {
  return {
    async query<T extends Row>(sql: string, params: readonly SqlValue[] = []) {
      const rs = await target.execute({ sql, args: params as InValue[] })
      return rs.rows.map((r) => ({ ...r }) as unknown as T)
    },
    async run(sql, params = []) {
      const rs = await target.execute({ sql, args: params as InValue[] })
      return { changes: rs.rowsAffected }
    },
  }
}

/**
 * SQLite through libsql: a `file:` URL (or `:memory:`). WAL mode and a busy timeout let the
 * server and a CLI share one file.
 */
export async function createLibsqlDriver(url: string): Promise<SqlDriver> {
  const { createClient } = await import('@libsql/client')
  const client = createClient({ url })
  if (url !== ':memory:') {
    await client.execute('PRAGMA journal_mode = WAL')
    await client.execute('PRAGMA busy_timeout = 5000')
  }
  await client.execute('PRAGMA foreign_keys = ON')
  // libsql serialises transactions on one client; queue them so concurrent callers wait their turn.
  let queue: Promise<unknown> = Promise.resolve()
  return {
    dialect: 'sqlite',
    ...executor(client),
    transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const next = queue.then(async () => {
        const tx = await client.transaction('write')
        try {
          const result = await fn(executor(tx))
          await tx.commit()
          return result
        } catch (err) {
          await tx.rollback()
          throw err
        } finally {
          tx.close()
        }
      })
      queue = next.catch(() => undefined)
      return next
    },
    async close() {
      await queue
      client.close()
    },
  }
}
