// The exchange as `npm start` runs it (the built bundle): it serves REST and GraphQL and stops cleanly;
// with a missing dependency or a bad setting it prints one clear line and exits 1.
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { clearRedisPrefix, newRedisPrefix, REDIS_URL } from '../support/exchange.js'
import { spawnMain } from '../support/mainProcess.js'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnMain({ LOG_LEVEL: 'silent', PORT: '0', ...env })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

const dbs: TestDatabase[] = []
afterAll(() => Promise.all(dbs.map((d) => d.drop())))

describe('the built exchange', () => {
  it('serves REST and GraphQL, and exits 0 on SIGTERM', { timeout: 60_000 }, async () => {
    const db = await createTestDatabase()
    dbs.push(db)
    const prefix = newRedisPrefix()
    const child = spawnMain({ NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: prefix, SIM_MAKER: 'false' })
    try {
      let url: string | undefined
      let serving: Record<string, unknown> = {}
      for await (const line of createInterface({ input: child.stdout! })) {
        const entry = JSON.parse(line) as { msg?: string; url?: string }
        if (entry.msg === 'serving HTTP') {
          url = entry.url
          serving = entry
          break
        }
      }
      expect(url).toMatch(/^http:\/\//)
      // The start-up line names where to go: the API, GraphiQL, the REST reference and the health probe.
      expect(serving).toMatchObject({ url, graphiql: `${url}/graphql`, docs: `${url}/docs`, health: `${url}/health` })
      expect(await (await fetch(serving['health'] as string)).json()).toEqual({ status: 'ok' })
      // GraphiQL's assets come from the package the bundle leaves external, resolved at run time.
      const page = await (await fetch(serving['graphiql'] as string, { headers: { accept: 'text/html' } })).text()
      const script = page.match(/src="([^"]+graphiql\.js)"/)?.[1]
      expect(script).toBeDefined()
      expect((await fetch(`${url}${script}`)).status).toBe(200)
      const ready = await fetch(`${url}/ready`)
      expect(ready.status).toBe(200)
      const markets = (await (await fetch(`${url}/perps/markets`)).json()) as Array<{ marketId: string }>
      expect(markets.map((m) => m.marketId)).toContain('BTC-PERP')
      const gql = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ market(id: "BTC-PERP") { id type } }' }),
      })
      expect(await gql.json()).toEqual({ data: { market: { id: 'BTC-PERP', type: 'PERPETUAL' } } })
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      expect((await exited)[0]).toBe(0)
    } finally {
      child.kill('SIGKILL')
      await clearRedisPrefix(prefix)
    }
  })
})

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

describe('a port already in use', () => {
  it('is named in one line, before the slow start-up, and the exit code is 1', async () => {
    const db = await createTestDatabase()
    dbs.push(db)
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as AddressInfo).port
    try {
      const line = `Port ${port} on 127.0.0.1 is already in use; stop the process holding it or set PORT to a free one`
      const started = await runMain({ HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: newRedisPrefix() })
      expect(started).toEqual({ code: 1, stderr: `${line}\n` })
      // Checked before anything else: an unreachable PostgreSQL is not what it reports.
      const early = await runMain({ HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/exchange' })
      expect(early).toEqual({ code: 1, stderr: `${line}\n` })
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })
})
