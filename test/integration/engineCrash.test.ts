// The engine in its own process, killed with SIGKILL in the middle of a trading load and restarted:
// every order a client saw acknowledged is in PostgreSQL exactly once, and PostgreSQL holds exactly the
// state of a shadow engine that applied the same command stream once (nothing lost, nothing doubled,
// nothing else moved).
import type { ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import { redisKeys } from '../../src/bus/keys.js'
import type { CommandEnvelope, Reply } from '../../src/engine/commands.js'
import { Engine } from '../../src/engine/engine.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { loadState } from '../../src/store/engineRebuild.js'
import { createPool } from '../../src/store/pg.js'
import { T0 } from '../support/engineFixtures.js'
import { clearRedisPrefix, newRedisPrefix, REDIS_URL } from '../support/exchange.js'
import { deferred } from '../support/deferred.js'
import { spawnMain } from '../support/mainProcess.js'
import { RandomTrading } from '../support/randomTrading.js'
import { createTestDatabase } from '../support/testDb.js'

const NODE = 'crash-test'
const COMMANDS = 6_000
const KILL_AFTER_ACKS = 2_500

function startEngine(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawnMain({ NODE_ENV: 'test', ROLES: 'engine', LOG_LEVEL: 'warn', ...env }, ['ignore', 'inherit', 'inherit'])
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) }
}

const cleanup: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

describe('engine crash', () => {
  it('loses no acknowledged order and applies nothing twice across a SIGKILL', { timeout: 240_000 }, async () => {
    const db = await createTestDatabase()
    const prefix = newRedisPrefix()
    cleanup.push(() => db.drop(), () => clearRedisPrefix(prefix))
    const keys = redisKeys(prefix)
    // Snapshots are taken rarely so the whole command stream stays readable for the checks.
    const env = { DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: prefix, ENGINE_LEASE_MS: '1000', ENGINE_BATCH_MAX: '200', ENGINE_SNAPSHOT_EVERY: '1000000' }

    const redis = await connectRedis(REDIS_URL, 'crash-test')
    const sub = await connectRedis(REDIS_URL, 'crash-test-sub')
    cleanup.push(async () => redis.disconnect(), async () => sub.disconnect())
    const replies = new Map<string, Reply>()
    const waiting = new Map<string, () => void>()
    sub.on('message', (_ch: string, msg: string) => {
      for (const { id, reply } of JSON.parse(msg) as Array<{ id: string; reply: Reply }>) {
        if (!replies.has(id)) replies.set(id, reply)
        waiting.get(id)?.()
      }
    })
    await sub.subscribe(keys.replies(NODE))
    const replyOf = (id: string) =>
      replies.has(id) ? Promise.resolve(replies.get(id)!) : new Promise<Reply>((resolve) => waiting.set(id, () => resolve(replies.get(id)!)))

    // The shadow applies every envelope in the order it is appended: the engine's order.
    const gen = new RandomTrading(4242, T0, 10)
    const shadow = new Engine()
    const sent: CommandEnvelope[] = []
    const send = async (envs: CommandEnvelope[]) => {
      const p = redis.pipeline()
      for (const e of envs) {
        const withReply = { ...e, replyTo: NODE }
        shadow.apply(withReply)
        sent.push(withReply)
        p.xadd(keys.commands, '*', 'c', JSON.stringify(withReply))
      }
      await p.exec()
    }

    let engine = startEngine(env)
    cleanup.push(async () => engine.child.kill('SIGKILL'))
    await send(gen.setup())
    expect((await replyOf(sent.at(-1)!.id)).ok).toBe(true)

    const enoughAcks = deferred()
    let acked = 0
    const countAck = (id: string) =>
      void replyOf(id).then(() => {
        if (++acked === KILL_AFTER_ACKS) enoughAcks.resolve()
      })
    const load = async (count: number) => {
      for (let i = 0; i < count; i += 100) {
        const chunk = Array.from({ length: Math.min(100, count - i) }, () => gen.next(shadow.state))
        await send(chunk)
        for (const e of chunk) countAck(e.id)
      }
    }
    await load(COMMANDS / 2)
    await enoughAcks.promise
    engine.child.kill('SIGKILL')
    expect(await engine.exited).toBe(null)
    const ackedBeforeKill = new Map(replies)
    expect(ackedBeforeKill.size).toBeLessThan(sent.length) // the kill really left commands in flight

    // Clients keep sending while the engine is down; a restarted engine takes over.
    await load(COMMANDS / 2)
    engine = startEngine(env)
    await Promise.all(sent.map((e) => replyOf(e.id)))

    // Every acknowledged placement is in PostgreSQL once, as acknowledged.
    const pool = await createPool(db.url)
    cleanup.push(() => pool.end())
    const rows = new Map((await pool.query<{ id: string; userId: string; marketId: string; quantity: string }>('SELECT id, "userId", "marketId", quantity::text FROM orders')).rows.map((r) => [r.id, r]))
    let placed = 0
    for (const e of sent) {
      const r = replies.get(e.id)!
      if (e.cmd.type !== 'PlaceOrder' || !r.ok) continue
      placed++
      const o = r.value as { id: string; userId: string; marketId: string }
      expect(rows.get(o.id), `acknowledged order ${o.id}`).toMatchObject({ userId: o.userId, marketId: o.marketId })
      // A reply seen before the kill is the same reply after it: nothing was applied twice.
      if (ackedBeforeKill.has(e.id)) expect(r).toEqual(ackedBeforeKill.get(e.id))
    }
    expect(placed).toBeGreaterThan(1_000)

    // PostgreSQL holds exactly the shadow's state: rebuilt from the tables, the hashes agree.
    expect(stateHash(await loadState(pool))).toBe(stateHash(shadow.state))
    const [{ n: orphans }] = (await pool.query('SELECT count(*)::int AS n FROM fills f LEFT JOIN orders o ON o.id = f."orderId" WHERE o.id IS NULL')).rows
    expect(orphans).toBe(0)
    const [{ n: drift }] = (await pool.query(
      `SELECT count(*)::int AS n FROM balances b
       LEFT JOIN (SELECT "userId", bucket, sum(amount) AS s FROM ledger_entries GROUP BY 1, 2) l USING ("userId", bucket)
       WHERE b.amount <> coalesce(l.s, 0)`,
    )).rows
    expect(drift).toBe(0)
    const [{ total }] = (await pool.query('SELECT sum(amount)::text AS total FROM balances')).rows
    expect(total).toBe('0.000000')
  })
})
