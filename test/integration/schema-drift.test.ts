// Fails when prisma/schema.prisma changes without a migration: run `npx tsx scripts/migrate-create.ts <name>`.
// The positive case runs the CLI exactly as CI would; the negative case proves the check can fail.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { checkDrift } from '../../scripts/migrate-create.js'
import { DEFAULT_MIGRATIONS_DIR } from '../../src/store/migrate.js'
import { serverUrl } from '../support/globalSetup.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const tempDirs: string[] = []

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('schema drift', () => {
  it('prisma/migrations produce exactly prisma/schema.prisma', async () => {
    // node --import tsx rather than npx: same loader, without npm's start-up cost.
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/migrate-create.ts', '--check'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: serverUrl() },
    })
    const { stdout } = await run.catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`drift check failed:\n${err.stderr || err.stdout || err.message}`)
    })
    expect(stdout.trim()).toBe('migrations match schema')
  })

  it('reports the SQL a schema change without a migration would need', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'exch-drift-'))
    tempDirs.push(dir)
    await cp(DEFAULT_MIGRATIONS_DIR, path.join(dir, 'migrations'), { recursive: true })
    const schema = await readFile(path.join(root, 'prisma/schema.prisma'), 'utf8')
    const edited = schema.replace(/^(model User \{\n)/m, '$1  driftProbe  String?\n')
    expect(edited).not.toBe(schema)
    await writeFile(path.join(dir, 'schema.prisma'), edited)

    const result = await checkDrift({
      serverUrl: serverUrl(),
      schemaPath: path.join(dir, 'schema.prisma'),
      migrationsDir: path.join(dir, 'migrations'),
    })

    expect(result.drift).toBe(true)
    expect(result.sql).toMatch(/ALTER TABLE "users" ADD COLUMN\s+"driftProbe" TEXT/)
  })
})
