// Engine processes (the built bundle) failing at exact points of a batch, with an API node in this test
// process: an engine killed between its commit and its replies (its callers still get their committed
// orders, never "retry"), and a leader frozen inside its commit (a standby leads within the lease while
// it is still frozen; woken, it is fenced out and stands down).
import { hostname } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, clearRedisPrefix, newRedisPrefix, REDIS_URL, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'
import { launchMain, type MainProcess } from '../support/mainProcess.js'
import { btcCurveMarks } from '../support/marks.js'
import { pollUntil } from '../support/poll.js'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'

let cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {})
  cleanup = []
})

interface World {
  db: TestDatabase
  prefix: string
  api: TestExchange
  h: Http
  users: SignedIn[]
  engine(env?: Record<string, string>): MainProcess
  /** Resolves once `p` holds the engine lease. */
  leading(p: MainProcess): Promise<void>
  order(u: SignedIn, side: 'buy' | 'sell', clientOrderId: string): Promise<HttpResult>
}

/** A database, engine processes on demand, the catalog listed, an API node here, two funded users. */
async function world(leaseMs: number, apiEnv: Record<string, string>, first: Record<string, string>): Promise<World & { first: MainProcess }> {
  const db = await createTestDatabase()
  const prefix = newRedisPrefix()
  cleanup.push(() => db.drop(), () => clearRedisPrefix(prefix))
  const engine = (env: Record<string, string> = {}) => {
    const p = launchMain({
      NODE_ENV: 'test', ROLES: 'engine', LOG_LEVEL: 'info', DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: prefix,
      ENGINE_LEASE_MS: String(leaseMs),
      // No periodic snapshot: only the one each leader takes once it has recovered.
      ENGINE_SNAPSHOT_EVERY: '10000000', ENGINE_SNAPSHOT_MS: '3600000',
      ...env,
    })
    cleanup.push(async () => p.child.kill('SIGKILL'))
    return p
  }
  const firstEngine = engine(first)
  // The scheduler lists the catalog through the engine, then leaves: nothing else appends commands.
  const lister = await startTestExchange({ ROLES: 'scheduler', MARK_STALE_MS: '3600000' }, { db, redisPrefix: prefix })
  await lister.close()
  const api = await startTestExchange({ ROLES: 'api', MARK_STALE_MS: '3600000', ORDER_RATE_PER_MIN: '100000', ...apiEnv }, { db, redisPrefix: prefix })
  cleanup.push(() => api.close())
  const h = http(api.url!)
  expect((await h.post('/admin/marks', btcCurveMarks('95000'), ADMIN)).status).toBe(200)
  const users = [await signIn(h, api.url!), await signIn(h, api.url!)]
  for (const u of users) await fundPerps(h, u)
  return {
    db, prefix, api, h, users, engine, first: firstEngine,
    leading: async (p) => {
      await pollUntil(async () => (await api.redis.get(api.keys.engineLease))?.startsWith(`${hostname()}:${p.child.pid}:`), { what: `engine ${p.child.pid} to lead` })
    },
    order: (u, side, clientOrderId) => h.post('/perps/orders', { marketId: 'BTC-PERP', side, price: '95000', quantity: '0.001', clientOrderId }, u.cookie),
  }
}

async function ordersByClientId(w: World, like: string): Promise<Map<string, { id: string }>> {
  const { rows } = await w.api.pool.query<{ id: string; clientOrderId: string }>(
    `SELECT id, "clientOrderId" FROM orders WHERE "clientOrderId" LIKE $1`,
    [like],
  )
  return new Map(rows.map((r) => [r.clientOrderId, r]))
}

async function ledgerDrift(w: World): Promise<number> {
  return (await w.api.pool.query(
    `SELECT count(*)::int AS n FROM balances b
     LEFT JOIN (SELECT "userId", bucket, sum(amount) AS s FROM ledger_entries GROUP BY 1, 2) l USING ("userId", bucket)
     WHERE b.amount <> coalesce(l.s, 0)`,
  )).rows[0].n
}

/** Eight orders placed at an engine that kills itself once its first batch is committed, before publishing it. */
async function killedAfterCommit(replyTimeoutMs: number) {
  const w = await world(1_000, { ENGINE_REPLY_TIMEOUT_MS: String(replyTimeoutMs) }, { ENGINE_FAULT: 'kill-after-commit' })
  await w.api.redis.set(w.api.keys.engineFault, '1')
  const placed = Array.from({ length: 8 }, (_, i) => w.order(w.users[i % 2]!, i % 2 === 0 ? 'buy' : 'sell', `kill-${i}`))
  expect((await w.first.exited).signal).toBe('SIGKILL')
  // What the dead engine committed and never answered.
  const committed = await ordersByClientId(w, 'kill-%')
  expect(committed.size).toBeGreaterThan(0)
  return { w, placed, committed }
}

describe('engine failover', () => {
  it('answers callers with their committed orders when the engine dies between commit and replies', { timeout: 120_000 }, async () => {
    const { w, placed, committed } = await killedAfterCommit(4_000)
    // Without a snapshot a new leader rebuilds from PostgreSQL and cannot replay (nor re-answer) the last batch.
    await w.api.redis.del(w.api.keys.snapshot)
    const restarted = w.engine()
    const answers = await Promise.all(placed)

    // Each committed order is answered with itself, as stored, though no engine ever replied to it.
    for (const [clientOrderId, row] of committed) {
      const a = answers[Number(clientOrderId.slice('kill-'.length))]!
      expect(a.status, a.text).toBe(200)
      expect(a.body).toMatchObject({ id: row.id, clientOrderId, marketId: 'BTC-PERP', price: '95000', quantity: '0.001' })
    }
    // The others the restarted engine applied, answering in time or not: an order still uncommitted when
    // its caller's wait ran out is OUTCOME_UNKNOWN, naming it. None is answered "retry" (503).
    for (const a of answers) {
      if (a.status === 200) continue
      expect(a.status, a.text).toBe(504)
      expect(a.body).toMatchObject({ code: 'OUTCOME_UNKNOWN', details: { commandId: expect.any(String), committed: false, orderIds: [expect.any(String)] } })
    }
    await w.leading(restarted)
    const after = await pollUntil(async () => {
      const rows = await ordersByClientId(w, 'kill-%')
      return rows.size === answers.length && rows
    }, { what: 'every order to be applied' })
    for (const [i, a] of answers.entries()) {
      expect(after.get(`kill-${i}`)!.id).toBe(a.status === 200 ? a.body.id : a.body.details.orderIds[0])
    }
    expect(await ledgerDrift(w)).toBe(0)
    expect((await w.order(w.users[0]!, 'buy', 'kill-after')).status).toBe(200)
  })

  it('publishes what an engine killed between its commit and its publication committed: the next leader replays it', { timeout: 120_000 }, async () => {
    // Replies wait longer than the test runs: every answer must be an engine's reply, not a lookup.
    const { w, placed, committed } = await killedAfterCommit(600_000)
    // The users' order streams, as their subscribers replay them.
    const logged = async () => {
      const entries = await Promise.all(w.users.map((u) => w.api.redis.xrange(w.api.keys.eventLog(`orders:${u.user.id}`), '-', '+')))
      return entries.flat().map(([, fields]) => fields[1]!).join('\n')
    }
    for (const row of committed.values()) expect(await logged()).not.toContain(row.id)

    // The dead leader snapshotted its state when it took over, so the next one replays the batch from there.
    w.engine()
    const answers = await Promise.all(placed)
    for (const a of answers) expect(a.status, a.text).toBe(200)
    const log = await logged()
    for (const row of committed.values()) expect(log).toContain(row.id)
  })

  it('lets a standby lead within the lease while the leader is frozen inside its commit, and fences the leader out', { timeout: 120_000 }, async () => {
    const LEASE_MS = 2_000
    const w = await world(LEASE_MS, { ENGINE_REPLY_TIMEOUT_MS: String(LEASE_MS * 10) }, { ENGINE_FAULT: 'stop-in-commit' })
    const frozen = w.first
    await w.leading(frozen)
    const standby = w.engine()
    await pollUntil(() => standby.logged('engine started; leading or standing by'), { what: 'the standby to start' })

    await w.api.redis.set(w.api.keys.engineFault, '1')
    const first = w.order(w.users[0]!, 'buy', 'frozen-1')
    await pollUntil(() => frozen.stopped(), { what: 'the leader to freeze inside its commit' })
    const frozenAt = Date.now()
    const second = w.order(w.users[1]!, 'sell', 'frozen-2')

    // The standby leads and commits both orders while the old leader is still frozen holding its
    // transaction: within the lease plus recovery (bounded generously here, in leases).
    const [a1, a2] = await Promise.all([first, second])
    const tookOver = Date.now() - frozenAt
    expect(frozen.stopped()).toBe(true)
    expect([a1.status, a2.status], `${a1.text} ${a2.text}`).toEqual([200, 200])
    expect(tookOver).toBeLessThan(LEASE_MS * 5)
    await w.leading(standby)

    // Woken, the old leader finds its transaction ended and a newer fencing token: it stands down, alive.
    frozen.child.kill('SIGCONT')
    await pollUntil(() => frozen.logged('batch refused: a newer leader holds the fencing token; stepping down'), { what: 'the old leader to be fenced out' })
    expect(frozen.alive()).toBe(true)
    const a3 = await w.order(w.users[0]!, 'buy', 'frozen-3')
    expect(a3.status, a3.text).toBe(200)
    await w.leading(standby)
    const rows = await ordersByClientId(w, 'frozen-%')
    expect([...rows.keys()].sort()).toEqual(['frozen-1', 'frozen-2', 'frozen-3'])
    expect(rows.get('frozen-1')!.id).toBe(a1.body.id)
    expect(await ledgerDrift(w)).toBe(0)
  })
})
