// Owns test databases: each call clones the run's migrated template (built once by globalSetup.ts) into
// a fresh `exch_t_<runid>_<n>`, which costs a file copy instead of replaying every migration.
//   const db = await createTestDatabase(); afterAll(() => db.drop())
// Databases a test forgets to drop are dropped at the end of the run by globalSetup's teardown.
import pg from 'pg'
import { inject } from 'vitest'
import { dropDatabase, quoteIdent, withDatabase } from '../../src/store/migrate.js'
import { serverUrl, testDatabasePrefix } from './globalSetup.js'

export interface TestDatabase {
  /** Connection URL of the new database (same server and user as TEST_DATABASE_URL). */
  url: string
  name: string
  /** Drops the database, disconnecting whatever is still connected to it. */
  drop(): Promise<void>
}

// PostgreSQL already waits up to 5 s for other sessions to leave the template before it gives up.
const CLONE_ATTEMPTS = 5

export async function createTestDatabase(): Promise<TestDatabase> {
  const templateDb = inject('templateDb')
  const runId = inject('runId')
  const base = serverUrl()
  const admin = new pg.Client({ connectionString: withDatabase(base, 'postgres') })
  admin.on('error', () => {})
  await admin.connect()
  try {
    // Serializes template use across test workers (separate processes) and makes numbering race-free.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [templateDb])
    const prefix = testDatabasePrefix(runId)
    const { rows } = await admin.query<{ n: number }>(
      `SELECT coalesce(max(substr(datname, length($1) + 1)::int), 0) + 1 AS n FROM pg_database
       WHERE starts_with(datname, $1) AND substr(datname, length($1) + 1) ~ '^[0-9]+$'`,
      [prefix],
    )
    const name = `${prefix}${rows[0]?.n ?? 1}`
    await cloneTemplate(admin, name, templateDb)
    const url = withDatabase(base, name)
    return { url, name, drop: () => dropDatabase(url) }
  } finally {
    await admin.end().catch(() => {}) // ending the session releases the advisory lock
  }
}

async function cloneTemplate(admin: pg.Client, name: string, templateDb: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(templateDb)}`)
      return
    } catch (err) {
      // 55006: "source database is being accessed by other users" (a session still leaving it).
      if ((err as { code?: string }).code !== '55006' || attempt >= CLONE_ATTEMPTS) throw err
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
    }
  }
}
