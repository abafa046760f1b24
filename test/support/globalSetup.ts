// Owns the per-run database template: once per `vitest run` it builds `exch_tpl_<runid>` with every
// migration applied, hands its name to test files (inject('templateDb')), and at teardown drops it and
// every `exch_t_<runid>_*` database the run cloned from it. Test files get databases from testDb.ts.
// It also builds the bundle `npm start` runs, which the process-level tests start (mainProcess.ts).
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { applyMigrations, ensureDatabase, quoteIdent, withDatabase, withServer } from '../../src/store/migrate.js'
import { ROOT } from './mainProcess.js'

declare module 'vitest' {
  export interface ProvidedContext {
    templateDb: string
    runId: string
  }
}

const START_COMMAND = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'
const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres'

/** The server test databases live on; its database part is only used to connect for administration. */
export function serverUrl(): string {
  return process.env.TEST_DATABASE_URL || DEFAULT_SERVER_URL
}

/** Every database a run creates starts with this; teardown drops them all. */
export function testDatabasePrefix(runId: string): string {
  return `exch_t_${runId}_`
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' })
  const base = serverUrl()
  await assertReachable(base)
  const runId = randomBytes(4).toString('hex')
  const templateDb = `exch_tpl_${runId}`
  const teardown = () => dropRunDatabases(base, runId, templateDb)
  try {
    const templateUrl = withDatabase(base, templateDb)
    await ensureDatabase(templateUrl)
    await applyMigrations(templateUrl)
    // CREATE DATABASE ... TEMPLATE fails while anyone is connected to the template: refuse connections.
    await withServer(base, (c) => c.query(`ALTER DATABASE ${quoteIdent(templateDb)} WITH ALLOW_CONNECTIONS false`))
  } catch (err) {
    await teardown().catch(() => {})
    throw err
  }
  project.provide('templateDb', templateDb)
  project.provide('runId', runId)
  return teardown
}

async function assertReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 3_000 })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (err) {
    const reason = err instanceof Error ? err.message || (err as NodeJS.ErrnoException).code : String(err)
    const error = new Error(`PostgreSQL is not reachable at ${url} (${reason}); start it with: ${START_COMMAND}`)
    error.stack = error.message // one line in vitest's report: the stack would only point here
    throw error
  } finally {
    await client.end().catch(() => {})
  }
}

async function dropRunDatabases(base: string, runId: string, templateDb: string): Promise<void> {
  await withServer(base, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname',
      [testDatabasePrefix(runId)],
    )
    // Clones first, then the template they were made from.
    for (const name of [...rows.map((r) => r.datname), templateDb]) {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`)
    }
  })
}
