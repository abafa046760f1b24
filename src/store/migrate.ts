// Owns the database's schema version: creates the database if missing and applies
// prisma/migrations/<name>/migration.sql in name order, recording each in `_prisma_migrations` exactly as
// `prisma migrate deploy` does, so a connected machine running Prisma's own CLI agrees with this runner.
// Prisma's native schema engine cannot be downloaded here, hence a runner of our own on plain `pg`.
import { createHash, randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

// Two levels below the project root both in the source tree (src/store/) and in the build (dist/app/).
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url))

// The key Prisma's own engine locks with, so this runner and `prisma migrate deploy` also exclude each other.
const ADVISORY_LOCK_KEY = 72707369

// Prisma's DDL for its bookkeeping table (PostgreSQL connector), verbatim apart from IF NOT EXISTS.
const MIGRATIONS_TABLE_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`

export interface ApplyOptions {
  /** Migrations directory; defaults to the project's prisma/migrations whatever the cwd. */
  dir?: string
  log?: (msg: string) => void
}

interface MigrationFile {
  name: string
  sql: string
  checksum: string
}

interface RecordedRow {
  migration_name: string
  checksum: string
  finished_at: Date | null
}

/** Double-quotes a PostgreSQL identifier (CREATE DATABASE takes no bind parameters). */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new Error('identifier contains a NUL byte')
  return `"${name.replaceAll('"', '""')}"`
}

/** The same server URL (host, port, user, options) pointed at another database. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl)
  url.pathname = `/${encodeURIComponent(database)}`
  return url.toString()
}

export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''))
  if (!name) throw new Error(`no database name in ${redact(databaseUrl)}`)
  return name
}

/** Runs `fn` on a connection to the server's `postgres` maintenance database. */
export async function withServer<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(withDatabase(databaseUrl, 'postgres'), fn)
}

/** Creates the URL's database if missing; true when this call created it. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl)
  return withServer(databaseUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (rowCount) return false
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`)
      return true
    } catch (err) {
      // Another process created it between our check and our CREATE: same outcome for the caller.
      if (isPgError(err, '42P04') || isPgError(err, '23505')) return false
      throw err
    }
  })
}

/** Drops the URL's database if present, disconnecting its sessions (PostgreSQL 13+). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl)
  await withServer(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`))
}

/** Applies pending migrations under an advisory lock; returns the names applied, in order. */
export async function applyMigrations(databaseUrl: string, opts: ApplyOptions = {}): Promise<string[]> {
  const dir = opts.dir ?? DEFAULT_MIGRATIONS_DIR
  const log = opts.log ?? (() => {})
  const files = await readMigrations(dir)
  return withClient(databaseUrl, async (client) => {
    // Session-level lock: it spans the per-migration transactions and dies with the connection.
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      ADVISORY_LOCK_KEY,
    ])
    if (!rows[0]?.locked) {
      log('waiting for another process to finish applying migrations')
      await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY])
    }
    try {
      await client.query(MIGRATIONS_TABLE_DDL)
      const pending = planPending(files, await readRecorded(client), log)
      for (const migration of pending) {
        await applyOne(client, migration)
        log(`applied migration ${migration.name}`)
      }
      return pending.map((m) => m.name)
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]).catch(() => {})
    }
  })
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new Error(`migrations directory not found: ${dir}`)
    throw err
  })
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) // code-point order: timestamps sort, locale does not matter
  const files: MigrationFile[] = []
  for (const name of names) {
    const bytes = await readFile(path.join(dir, name, 'migration.sql')).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null // Prisma also ignores directories without a script
      throw err
    })
    if (bytes) files.push({ name, sql: bytes.toString('utf8'), checksum: sha256(bytes) })
  }
  return files
}

/** Rows that count: Prisma keeps rolled-back attempts as an audit trail. */
async function readRecorded(client: pg.Client): Promise<RecordedRow[]> {
  const { rows } = await client.query<RecordedRow>(
    'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  )
  return rows
}

function planPending(files: MigrationFile[], recorded: RecordedRow[], log: (msg: string) => void) {
  const failed = recorded.filter((r) => r.finished_at === null).map((r) => r.migration_name)
  if (failed.length) {
    // Left by `prisma migrate deploy` (which records before running); this runner never leaves such rows.
    throw new Error(
      `migration(s) ${failed.join(', ')} failed earlier and are recorded as unfinished in _prisma_migrations; ` +
        'fix the database by hand, then set rolled_back_at on those rows',
    )
  }
  const applied = new Map(recorded.map((r) => [r.migration_name, r]))
  const edited = files.filter((f) => {
    const row = applied.get(f.name)
    return row !== undefined && !checksumMatches(f.sql, row.checksum)
  })
  if (edited.length) {
    throw new Error(
      `migration(s) ${edited.map((f) => f.name).join(', ')} were edited after being applied ` +
        '(checksum in _prisma_migrations differs from migration.sql); restore the applied file and put ' +
        'the change in a new migration',
    )
  }
  const known = new Set(files.map((f) => f.name))
  for (const name of applied.keys()) {
    if (!known.has(name)) log(`warning: migration ${name} is applied in the database but missing from the directory`)
  }
  return files.filter((f) => !applied.has(f.name))
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  await client.query('BEGIN')
  try {
    // No bind parameters: the simple protocol runs the whole multi-statement script (plpgsql bodies included).
    await client.query(migration.sql)
    // started_at = now() (transaction start), finished_at = clock_timestamp(): the same row Prisma writes.
    await client.query(
      `INSERT INTO "_prisma_migrations"
         (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    )
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    const message = err instanceof Error ? err.message : String(err)
    throw new Error(`migration ${migration.name} failed and was rolled back: ${message}`, { cause: err })
  }
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

// Like Prisma: a file whose line endings git converted (LF <-> CRLF) still matches its recorded checksum.
function checksumMatches(sql: string, recorded: string): boolean {
  const lf = sql.replaceAll('\r\n', '\n')
  return [sql, lf, lf.replaceAll('\n', '\r\n')].some((s) => sha256(s) === recorded)
}

async function withClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 })
  client.on('error', () => {}) // a dropped connection surfaces as the failing query's error instead
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

function isPgError(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code
}

function redact(databaseUrl: string): string {
  const url = new URL(databaseUrl)
  if (url.password) url.password = '***'
  return url.toString()
}
