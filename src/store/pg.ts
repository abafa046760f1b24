// PostgreSQL connections. The engine's batch writer and rebuild use a plain pg pool (one transaction per
// batch, statements it composes itself); API reads go through Prisma (prisma.ts) on the same database.
import pg from 'pg'

// NUMERIC and BIGINT arrive as strings: money stays exact and ids stay whole; callers convert.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v)

export class PostgresUnavailableError extends Error {}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
}

export function unavailableMessage(url: string, err: unknown): string {
  return (
    `PostgreSQL at ${redactUrl(url)} is unreachable (${(err as Error).message || (err as { code?: string }).code}); ` +
    'start it with `docker compose up -d postgres` or ' +
    '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or set DATABASE_URL'
  )
}

export async function createPool(url: string, max = 10): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 })
  pool.on('error', () => {}) // an idle client's error surfaces again on its next checkout
  try {
    await pool.query('SELECT 1')
  } catch (err) {
    await pool.end().catch(() => {})
    throw new PostgresUnavailableError(unavailableMessage(url, err))
  }
  return pool
}

/** Runs fn in a transaction on one pooled client; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  } finally {
    client.release()
  }
}
