// Owns the database-growth benchmark of the liquidity simulator: a whole exchange (api, engine,
// scheduler, maker) with the simulated feed and the simulator at their default cadence, on a throwaway
// database and Redis prefix removed at the end. Once the house quotes, it runs for BENCH_SIM_MS
// (default 60 s) and extrapolates what the simulator adds per hour: order, fill and ledger rows, the
// bytes those order rows take, and how the orders table with its indexes grew on disk (dead versions of
// amended rows included, as far as vacuum has not made their space reusable). Retention is off here, so
// every row counts. The simulator quotes the linear markets and the BTC options near the money; option
// orders are also counted on their own.
// Run alone: npm run bench -- simGrowth
import { randomBytes } from 'node:crypto'
import pino from 'pino'
import { connectRedis } from '../src/bus/redis.js'
import { loadConfig } from '../src/config/env.js'
import { startExchange } from '../src/server.js'
import { dropDatabase, withDatabase } from '../src/store/migrate.js'
import { fmt, printLine } from './report.js'

const HOUR_MS = 3_600_000
// Every market and every quoted option (about 12 + 72 on the default catalog) has had its first ladder.
const WARM_UP_LADDERS = 250
/** autovacuum_naptime's default. */
const VACUUM_EVERY_MS = 60_000

interface Sample {
  at: number
  orders: number
  /** Of those, on option markets (the house's option quotes, the taker's option orders). */
  optionOrders: number
  unfilled: number
  fills: number
  ledger: number
  ordersBytes: number
  /** Mean bytes of an orders row on disk: its data, tuple header and line pointer. */
  rowBytes: number
}

export async function benchSimGrowth(): Promise<void> {
  const runMs = Number(process.env.BENCH_SIM_MS || 60_000)
  const base = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres'
  const databaseUrl = withDatabase(base, `exch_bench_sim_${randomBytes(4).toString('hex')}`)
  const config = loadConfig({
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `bench:${randomBytes(4).toString('hex')}:`,
    ROLES: 'api,engine,scheduler,maker',
    SIM_MAKER: 'true',
    MARK_FEED: 'sim',
    PRUNE_UNFILLED_ORDERS_AFTER_MS: '0',
  })
  const ex = await startExchange(config, { log: pino({ level: 'error' }) })
  const sample = async (): Promise<Sample> => {
    const { rows } = await ex.pool.query<Omit<Sample, 'at'>>(
      `SELECT (SELECT count(*) FROM orders)::int AS orders,
              (SELECT count(*) FROM orders o JOIN markets m ON m.id = o."marketId" WHERE m.type = 'option')::int AS "optionOrders",
              (SELECT count(*) FROM orders WHERE "filledQuantity" = 0 AND status <> 'open')::int AS unfilled,
              (SELECT count(*) FROM fills)::int AS fills,
              (SELECT count(*) FROM ledger_entries)::int AS ledger,
              pg_total_relation_size('orders')::float8 AS "ordersBytes",
              (SELECT coalesce(avg(pg_column_size(o.*)), 0) + 28 FROM orders o)::float8 AS "rowBytes"`,
    )
    return { at: performance.now(), ...rows[0]! }
  }
  try {
    // Measured once every market has its ladder (WARM_UP_LADDERS): sign-in,
    // funding and the first ladders are a one-off.
    const deadline = performance.now() + 120_000
    while (!ex.maker || ex.maker.laddersQuoted < WARM_UP_LADDERS) {
      if (performance.now() > deadline) throw new Error('the simulator did not start quoting within 120 s')
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    // Amending rewrites rows, and their old versions are reclaimed by vacuum. Where autovacuum is off (as
    // on the test server) the bench vacuums the table itself, at autovacuum's default pace.
    const autovacuum = (await ex.pool.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum === 'on'
    const vacuum = autovacuum ? null : setInterval(() => void ex.pool.query('VACUUM orders').catch(() => {}), VACUUM_EVERY_MS)
    const first = await sample()
    const laddersBefore = ex.maker.laddersQuoted
    await new Promise((resolve) => setTimeout(resolve, runMs))
    if (vacuum) clearInterval(vacuum)
    const last = await sample()
    const ladders = ex.maker.laddersQuoted - laddersBefore
    const perHour = (k: keyof Omit<Sample, 'at' | 'rowBytes'>) => ((last[k] - first[k]) * HOUR_MS) / (last.at - first.at)
    const mib = (bytes: number) => fmt(bytes / 1_048_576, 1)
    const seconds = (last.at - first.at) / 1_000
    printLine(
      `simGrowth: orders (${fmt(ladders)} ladders in ${fmt(seconds)} s)`,
      `${fmt(perHour('orders'))} rows/h (${fmt(perHour('unfilled'))} ended unfilled), ${mib(perHour('orders') * last.rowBytes)} MiB/h of rows`,
    )
    printLine('simGrowth: of which option orders', `${fmt(perHour('optionOrders'))} rows/h (${fmt(last.optionOrders)} now)`)
    // Until vacuum has made old row versions reusable the file grows too: over a short run this is an
    // upper bound, not the steady state.
    const vacuumed = autovacuum ? 'autovacuum' : `VACUUM every ${VACUUM_EVERY_MS / 1_000} s`
    printLine('simGrowth: orders table and indexes on disk', `${mib(perHour('ordersBytes'))} MiB/h (${mib(last.ordersBytes)} MiB now, ${vacuumed})`)
    printLine('simGrowth: fills and ledger', `${fmt(perHour('fills'))} fills/h, ${fmt(perHour('ledger'))} ledger rows/h`)
  } finally {
    await ex.stop()
    const redis = await connectRedis(config.redisUrl, 'bench-sim-cleanup')
    let cursor = '0'
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${config.redisPrefix}*`, 'COUNT', 1000)
      if (found.length > 0) await redis.del(...found)
      cursor = next
    } while (cursor !== '0')
    redis.disconnect()
    await dropDatabase(databaseUrl)
  }
}
