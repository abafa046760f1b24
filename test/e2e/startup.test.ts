// Starting the real entry point with a missing dependency or a bad setting: one clear line, exit 1.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', PORT: '0', ...env },
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

const dbs: TestDatabase[] = []
afterAll(() => Promise.all(dbs.map((d) => d.drop())))

describe('start-up errors', () => {
  it('names an unreachable PostgreSQL and how to start it, in one line', async () => {
    const { code, stderr } = await runMain({ DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:1/exchange' })
    expect(code).toBe(1)
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^PostgreSQL at postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/exchange is unreachable/)
    expect(lines[0]).toContain('docker compose up -d postgres')
    expect(lines[0]).not.toContain('secret')
  })

  it('names an unreachable Redis and how to start it, in one line', async () => {
    const db = await createTestDatabase()
    dbs.push(db)
    const { code, stderr } = await runMain({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:1' })
    expect(code).toBe(1)
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:1 is unreachable/)
    expect(lines[0]).toContain('docker compose up -d redis')
  })

  it('refuses an invalid setting before touching anything, naming the variable', async () => {
    const { code, stderr } = await runMain({ PORT: 'eighty', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/x' })
    expect(code).toBe(1)
    expect(stderr).toMatch(/invalid configuration:\n {2}PORT: /)
  })
})
