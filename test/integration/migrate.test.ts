// The migration runner (src/store/migrate.ts) against the real PostgreSQL server, plus the database
// behaviour the initial migration adds beyond Prisma's model (the append-only ledger trigger).
import { createHash } from 'node:crypto'
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  applyMigrations,
  DEFAULT_MIGRATIONS_DIR,
  dropDatabase,
  ensureDatabase,
  withDatabase,
} from '../../src/store/migrate.js'
import { serverUrl, testDatabasePrefix } from '../support/globalSetup.js'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'

const created: string[] = []
const tempDirs: string[] = []
let counter = 0

/** A URL for a database that does not exist yet; dropped after each test. */
function freshDatabaseUrl(label: string): string {
  const url = withDatabase(serverUrl(), `${testDatabasePrefix(inject('runId'))}${label}_${++counter}`)
  created.push(url)
  return url
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(sql, params)).rows
  } finally {
    await client.end()
  }
}

async function migrationNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort()
}

async function tempMigrationsCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'exch-migrations-'))
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true })
  tempDirs.push(dir)
  return dir
}

afterEach(async () => {
  await Promise.all(created.splice(0).map((url) => dropDatabase(url)))
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('ensureDatabase', () => {
  it('creates a missing database, then is a no-op', async () => {
    const url = freshDatabaseUrl('ensure')
    const name = new URL(url).pathname.slice(1)
    expect(await ensureDatabase(url)).toBe(true)
    const rows = await query(withDatabase(url, 'postgres'), 'SELECT 1 FROM pg_database WHERE datname = $1', [name])
    expect(rows).toHaveLength(1)
    expect(await ensureDatabase(url)).toBe(false)
  })
})

describe('applyMigrations', () => {
  it('applies every migration to an empty database and records it as Prisma does', async () => {
    const url = freshDatabaseUrl('apply')
    await ensureDatabase(url)
    const names = await migrationNames(DEFAULT_MIGRATIONS_DIR)
    expect(names.length).toBeGreaterThan(0)

    expect(await applyMigrations(url)).toEqual(names)

    const rows = await query<{
      id: string
      checksum: string
      finished_at: Date | null
      started_at: Date
      migration_name: string
      logs: string | null
      rolled_back_at: Date | null
      applied_steps_count: number
    }>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name')
    expect(rows.map((r) => r.migration_name)).toEqual(names)
    for (const row of rows) {
      const bytes = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, row.migration_name, 'migration.sql'))
      expect(row.checksum).toBe(createHash('sha256').update(bytes).digest('hex'))
      expect(row.applied_steps_count).toBe(1)
      expect(row.finished_at).toBeInstanceOf(Date)
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime())
      expect(row.rolled_back_at).toBeNull()
      expect(row.logs).toBeNull()
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    }

    expect(await applyMigrations(url)).toEqual([])
    expect(await query(url, 'SELECT 1 FROM "_prisma_migrations"')).toHaveLength(names.length)
  })

  it('applies each migration once when two processes start at the same time', async () => {
    const url = freshDatabaseUrl('concurrent')
    await ensureDatabase(url)
    const names = await migrationNames(DEFAULT_MIGRATIONS_DIR)

    const results = await Promise.all([applyMigrations(url), applyMigrations(url)])

    // The advisory lock lets one run apply everything; the other then finds nothing to do.
    expect(results.flat().sort()).toEqual(names)
    expect(results.some((r) => r.length === 0)).toBe(true)
    const rows = await query<{ migration_name: string }>(url, 'SELECT migration_name FROM "_prisma_migrations"')
    expect(rows.map((r) => r.migration_name).sort()).toEqual(names)
  })

  it('refuses a migration edited after it was applied', async () => {
    const url = freshDatabaseUrl('edited')
    await ensureDatabase(url)
    const dir = await tempMigrationsCopy()
    const [first] = await migrationNames(dir)
    await applyMigrations(url, { dir })

    await appendFile(path.join(dir, first!, 'migration.sql'), '\n-- an afterthought\n')

    await expect(applyMigrations(url, { dir })).rejects.toThrow(
      new RegExp(`migration\\(s\\) ${first} were edited after being applied`),
    )
  })

  it('rolls a failing migration back, records nothing and names it', async () => {
    const url = freshDatabaseUrl('failing')
    await ensureDatabase(url)
    const dir = await tempMigrationsCopy()
    const good = await migrationNames(dir)
    const broken = '99990101000000_broken'
    await mkdir(path.join(dir, broken))
    await writeFile(
      path.join(dir, broken, 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT 1 / 0;\n',
    )

    await expect(applyMigrations(url, { dir })).rejects.toThrow(
      /migration 99990101000000_broken failed and was rolled back: division by zero/,
    )

    const recorded = await query<{ migration_name: string }>(
      url,
      'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name',
    )
    expect(recorded.map((r) => r.migration_name)).toEqual(good)
    const [table] = await query<{ oid: string | null }>(url, `SELECT to_regclass('"half_done"') AS oid`)
    expect(table?.oid).toBeNull()
  })
})

describe('a test database cloned from the run template', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(async () => {
    await db?.drop()
  })

  it('has every migration applied already', async () => {
    expect(db.name).toMatch(new RegExp(`^exch_t_${inject('runId')}_[0-9]+$`))
    expect(await applyMigrations(db.url)).toEqual([])
  })

  it('keeps ledger_entries append-only: UPDATE and DELETE are refused', async () => {
    const [entry] = await query<{ id: string }>(
      db.url,
      `INSERT INTO "ledger_entries" ("userId", "bucket", "amount", "balanceAfter", "kind", "createdAt")
       VALUES ('u1', 'wallet', 10, 10, 'deposit', now()) RETURNING "id"`,
    )
    expect(entry).toBeDefined()

    await expect(
      query(db.url, 'UPDATE "ledger_entries" SET "amount" = 11 WHERE "id" = $1', [entry!.id]),
    ).rejects.toThrow(/ledger_entries is append-only: UPDATE refused/)
    await expect(query(db.url, 'DELETE FROM "ledger_entries" WHERE "id" = $1', [entry!.id])).rejects.toThrow(
      /ledger_entries is append-only: DELETE refused/,
    )

    const rows = await query<{ amount: string }>(db.url, 'SELECT "amount" FROM "ledger_entries"')
    expect(rows).toEqual([{ amount: '10.000000' }])
  })
})
