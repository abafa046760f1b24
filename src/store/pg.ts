// PostgreSQL connections. The engine's batch writer and rebuild use a plain pg pool of their own (one
// transaction per batch, statements it composes itself); API reads go through Prisma (prisma.ts) on the
// process's shared pool. A connection the server ends (pg_terminate_backend, a restart, a timeout) is an
// event every pool survives: the next checkout opens a fresh one.
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

export interface PoolOptions {
  max?: number
  /** Shown in pg_stat_activity, so an operator (or a test) can tell the engine's sessions from the API's. */
  applicationName?: string
  /** Server-side: a session idle inside a transaction this long is ended by PostgreSQL. */
  idleInTransactionTimeoutMs?: number
  /** Server-side: a statement waiting this long for a lock fails with 55P03. */
  lockTimeoutMs?: number
  /** Called with the error of a connection that died while nobody was querying on it. */
  onConnectionError?: (err: Error) => void
}

/** A connection that cannot be opened within this fails, so no request waits on an unreachable server. */
const CONNECT_TIMEOUT_MS = 5_000

export async function createPool(url: string, o: PoolOptions = {}): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: url,
    max: o.max ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    application_name: o.applicationName,
    idle_in_transaction_session_timeout: o.idleInTransactionTimeoutMs,
    lock_timeout: o.lockTimeoutMs,
  })
  const onError = (err: Error) => o.onConnectionError?.(err)
  pool.on('error', () => {}) // an idle client's error: the pool drops it (and the listener below reports it)
  // pg-pool listens for a client's errors only while it is idle; a checked-out client whose server
  // session ends between two queries (or after a failed one) would emit an unhandled 'error' and end the
  // process. Every client gets a listener for its whole life; its queries still fail and it is discarded.
  pool.on('connect', (client) => client.on('error', onError))
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
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    if (isConnectionLoss(err)) broken = err as Error
    else await client.query('ROLLBACK').catch((e: Error) => (broken = e))
    throw err
  } finally {
    // A client whose session died is destroyed, not returned to the pool for the next caller to fail on.
    client.release(broken)
  }
}

// SQLSTATEs meaning the session is gone or the server will not serve: class 08 (connection exception),
// 57P0x (shutdown, crash, starting up), 53300 (too many connections).
const LOST_CODES = /^(08...|57P0[1-4]|53300)$/
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])
// pg's own errors for a dead or unopenable connection carry no code, only these messages.
const LOST_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable)/
// What Prisma's pg adapter reports for the same (its DriverAdapterError's `kind`), and Prisma's codes for it.
const LOST_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'])
const PRISMA_LOST = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024'])

/**
 * Whether an error (from pg, from Prisma over the pg adapter, or wrapping one of those) means PostgreSQL
 * is unreachable or ended the session, rather than that the statement itself was refused. A FATAL
 * error always ends the session: it covers a terminated backend, an idle-in-transaction timeout and a
 * database that does not accept connections.
 */
export function isConnectionLoss(err: unknown): boolean {
  const seen = new Set<unknown>()
  const queue: unknown[] = [err]
  while (queue.length > 0) {
    const e = queue.shift()
    if (typeof e !== 'object' || e === null || seen.has(e)) continue
    seen.add(e)
    const x = e as { code?: unknown; severity?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } }
    if (x.severity === 'FATAL' || x.severity === 'PANIC') return true
    if (typeof x.code === 'string' && (LOST_CODES.test(x.code) || SOCKET_CODES.has(x.code) || PRISMA_LOST.has(x.code))) return true
    if (typeof x.kind === 'string' && LOST_KINDS.has(x.kind)) return true
    if (typeof x.message === 'string' && LOST_MESSAGES.test(x.message)) return true
    queue.push(x.cause, x.meta?.driverAdapterError, (e as { originalError?: unknown }).originalError)
  }
  return false
}

/** 55P03: a statement gave up waiting for a lock (lock_timeout). */
export function isLockTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '55P03'
}
