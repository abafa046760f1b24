// The engine runner against real PostgreSQL and Redis: replies only after commit, crash and restart,
// recovery from a snapshot, rebuild from PostgreSQL when Redis lost everything, failover to a standby
// with the deposed leader's late batch refused by its fencing token, a COMMIT whose answer was lost.
import { Writable } from 'node:stream'
import pg from 'pg'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import type { CommandEnvelope } from '../../src/engine/commands.js'
import { Engine } from '../../src/engine/engine.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { EngineRunner } from '../../src/roles/engine/runner.js'
import { createPool } from '../../src/store/pg.js'
import { catalogAt, commandStream, envelope, T0 } from '../support/engineFixtures.js'
import { clearRedisPrefix, newRedisPrefix, REDIS_URL, startTestExchange, type TestExchange } from '../support/exchange.js'
import { deferred } from '../support/deferred.js'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'
import { testClock } from '../support/clock.js'

const ENGINE_ONLY = { ROLES: 'engine', ENGINE_LEASE_MS: '600' }

let cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c()
  cleanup = []
})

async function shared(): Promise<{ db: TestDatabase; redisPrefix: string }> {
  const db = await createTestDatabase()
  const redisPrefix = newRedisPrefix()
  cleanup.push(() => db.drop(), () => clearRedisPrefix(redisPrefix))
  return { db, redisPrefix }
}

async function start(env: Record<string, string>, opts: Parameters<typeof startTestExchange>[1]): Promise<TestExchange> {
  const ex = await startTestExchange({ ...ENGINE_ONLY, ...env }, opts)
  cleanup.push(() => ex.close())
  return ex
}

async function append(ex: TestExchange, envs: readonly CommandEnvelope[]): Promise<string> {
  const p = ex.redis.pipeline()
  for (const env of envs) p.xadd(ex.keys.commands, '*', 'c', JSON.stringify(env))
  const results = await p.exec()
  return results!.at(-1)![1] as string
}

async function count(ex: TestExchange, sql: string): Promise<number> {
  return Number((await ex.pool.query<{ n: string }>(sql)).rows[0]!.n)
}

const markCount = (ex: TestExchange) => count(ex, 'SELECT count(*) AS n FROM mark_prices')

/** What a reference engine, applying the same commands with no I/O, ends with. */
function reference(envs: readonly CommandEnvelope[]) {
  const engine = new Engine()
  let marks = 0
  for (const env of envs) {
    engine.apply(env)
    marks += engine.takeChanges().marks.length
  }
  return { hash: stateHash(engine.state), marks }
}

describe('engine runner', () => {
  it('replies only after the batch is committed', async () => {
    const s = await shared()
    const gate = deferred()
    const entered = deferred()
    let hold = false
    const ex = await start({}, {
      ...s,
      beforeCommit: async () => {
        if (!hold) return
        entered.resolve()
        await gate.promise
      },
    })
    expect((await ex.services.commands.submit({ type: 'ListMarkets', markets: catalogAt() })).ok).toBe(true)

    hold = true
    let answered = false
    const reply = ex.services.commands
      .submit({ type: 'UpdateMarks', marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'push', sourceTs: testClock.now() }] })
      .then((r) => ((answered = true), r))
    await entered.promise
    await new Promise((r) => setImmediate(r))
    expect(answered).toBe(false)
    expect(await markCount(ex)).toBe(0)

    hold = false
    gate.resolve()
    expect(await reply).toEqual({ ok: true, value: { accepted: 1 } })
    expect(await markCount(ex)).toBe(1)
  })

  it('does not acknowledge a batch whose commit failed; it is re-applied once and then acknowledged', async () => {
    const s = await shared()
    let failNext = false
    const ex = await start({}, {
      ...s,
      beforeCommit: async () => {
        if (failNext) {
          failNext = false
          throw new Error('simulated PostgreSQL failure')
        }
      },
    })
    await ex.services.commands.execute({ type: 'ListMarkets', markets: catalogAt() })
    failNext = true
    const reply = await ex.services.commands.submit({
      type: 'UpdateMarks',
      marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'push', sourceTs: testClock.now() }],
    })
    expect(reply).toEqual({ ok: true, value: { accepted: 1 } })
    expect(await markCount(ex)).toBe(1)
    expect(ex.logs.some((l) => l.includes('simulated PostgreSQL failure'))).toBe(true)
  })

  it('killed mid-stream and restarted, it ends in the same state as an uninterrupted run: none lost, none twice', async () => {
    const s = await shared()
    const stream = commandStream(11, 1_500)
    const env = { ENGINE_BATCH_MAX: '40', ENGINE_SNAPSHOT_EVERY: '200' }
    let commits = 0
    const crashed = deferred()
    let a: TestExchange | null = null
    a = await start(env, {
      ...s,
      beforeCommit: async () => {
        // The 20th batch is in memory but not committed when the process "dies".
        if (++commits === 20) {
          void a!.engine!.crash().then(() => crashed.resolve())
        }
      },
    })
    const lastId = await append(a, stream)
    await crashed.promise
    const committedAtCrash = (await a.pool.query('SELECT "lastStreamId" FROM engine_offsets')).rows[0].lastStreamId
    expect(committedAtCrash).not.toBe(lastId)
    expect(await a.redis.exists(a.keys.snapshot)).toBe(1) // the restart can start from a snapshot

    const b = await start(env, s)
    const finalCmd = { type: 'SetMarketStatus' as const, marketId: 'BTC-PERP', status: 'halted' as const }
    const finalTs = T0 + 10_000_000
    expect((await b.services.commands.submit(finalCmd, { ts: finalTs })).ok).toBe(true)

    const ref = reference([...stream, envelope(finalCmd, finalTs)])
    expect(stateHash(b.engine!.engine!.state)).toBe(ref.hash)
    expect(await markCount(b)).toBe(ref.marks)
    const recovered = b.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'engine recovered')
    expect(recovered.from).not.toBe('0-0') // resumed from the snapshot, replaying only the tail
    expect(recovered.committed).toBe(committedAtCrash)
  })

  it('rebuilds the same state from PostgreSQL when Redis has lost everything, and carries on', async () => {
    const s = await shared()
    const stream = commandStream(12, 600)
    const a = await start({ ENGINE_BATCH_MAX: '50' }, s)
    await append(a, stream.slice(0, -1))
    expect((await a.services.commands.submit(stream.at(-1)!.cmd, { ts: stream.at(-1)!.ts })).ok).toBeDefined()
    const ref = reference(stream)
    expect(stateHash(a.engine!.engine!.state)).toBe(ref.hash)
    await a.close()
    await clearRedisPrefix(s.redisPrefix)

    const b = await start({}, s)
    const reply = await b.services.commands.submit(
      { type: 'UpdateMarks', marks: [{ marketId: 'XAUT-USDC-SPOT', price: '4001.5', source: 'push', sourceTs: T0 + 10_000_000 }] },
      { ts: T0 + 10_000_000 },
    )
    expect(reply).toEqual({ ok: true, value: { accepted: 1 } })
    const expected = new Engine()
    for (const env of stream) expected.apply(env)
    expected.apply(envelope({ type: 'UpdateMarks', marks: [{ marketId: 'XAUT-USDC-SPOT', price: '4001.5', source: 'push', sourceTs: T0 + 10_000_000 }] }, T0 + 10_000_000))
    expect(stateHash(b.engine!.engine!.state)).toBe(stateHash(expected.state))
    expect(await markCount(b)).toBe(ref.marks + 1)
  })

  it('fails over to a hot standby when the lease lapses, and refuses the old leader\'s late batch', async () => {
    const s = await shared()
    const gate = deferred()
    const entered = deferred()
    const fenced = deferred<string>()
    let hold = false
    const a = await start({}, {
      ...s,
      instanceId: 'engine-a',
      beforeCommit: async () => {
        if (!hold) return
        entered.resolve()
        await gate.promise
      },
      onFencedOut: (id) => fenced.resolve(id),
    })
    await a.services.commands.execute({ type: 'ListMarkets', markets: catalogAt() })
    expect(a.engine!.isLeader).toBe(true)
    const b = await start({}, { ...s, instanceId: 'engine-b' })
    expect(b.engine!.isLeader).toBe(false)

    hold = true
    const reply = b.services.commands.submit({
      type: 'UpdateMarks',
      marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'push', sourceTs: testClock.now() }],
    })
    await entered.promise
    // A stalls (think: a long GC pause) holding an uncommitted batch; its lease lapses.
    await a.redis.del(a.keys.engineLease)
    expect(await reply).toEqual({ ok: true, value: { accepted: 1 } })
    expect(b.engine!.isLeader).toBe(true)

    gate.resolve()
    await fenced.promise
    expect(a.engine!.isLeader).toBe(false)
    expect(await markCount(a)).toBe(1)
    const offset = (await a.pool.query('SELECT "fencingToken" FROM engine_offsets')).rows[0]
    expect(offset.fencingToken).toBe('2')
  })

  it.each([
    ['after the COMMIT took effect', 'committed', true],
    ['before the COMMIT took effect', 'not-committed', false],
  ] as const)('resolves a batch whose connection died %s from the stored offset, applying it exactly once', async (_when, outcome, commitFirst) => {
    const s = await shared()
    // An API node only; the engine is built here, on a pool whose next COMMIT "loses its connection".
    const api = await start({ ROLES: 'api' }, s)
    const pool = await createPool(s.db.url)
    const blocking = await connectRedis(REDIS_URL, 'test-engine-stream')
    cleanup.push(() => pool.end(), async () => blocking.disconnect())
    let loseNextCommit = false
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined
    // Transactions check a client out with connect(); pool.query() passes a callback and is left alone.
    // A batch's transaction is one query ending in its COMMIT (store/batchWriter.ts).
    ;(pool as { connect: unknown }).connect = async (...args: unknown[]) => {
      if (args.length > 0) return connect(...args)
      const client = (await connect())!
      const query = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>
      ;(client as { query: unknown }).query = async (text: string, values?: unknown[]) => {
        if (!text.endsWith('COMMIT') || !loseNextCommit) return query(text, values)
        loseNextCommit = false
        if (commitFirst) await query(text)
        throw new Error('Connection terminated unexpectedly')
      }
      return client
    }
    const logs: string[] = []
    const runner = new EngineRunner({
      redis: api.redis, blocking, pool, keys: api.keys, instanceId: 'engine-under-test',
      log: pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) })),
      batchMax: 100, snapshotEvery: 1_000_000, snapshotMs: 3_600_000, leaseMs: 1_000,
    })
    runner.start()
    cleanup.push(() => runner.stop())
    await api.services.commands.execute({ type: 'ListMarkets', markets: catalogAt() })

    loseNextCommit = true
    const reply = await api.services.commands.submit({
      type: 'UpdateMarks',
      marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'push', sourceTs: testClock.now() }],
    })
    expect(reply).toEqual({ ok: true, value: { accepted: 1 } })
    expect(loseNextCommit).toBe(false)
    expect(await markCount(api)).toBe(1)
    expect(logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'batch resolved from the stored offset').map((l) => l.outcome)).toEqual([outcome])
    expect(runner.isLeader).toBe(true) // rode it out in place, state kept
    const offset = (await api.pool.query('SELECT "lastStreamId" FROM engine_offsets')).rows[0]
    expect(offset.lastStreamId).toBe(runner.committed)
  })
})
