// Owns the credential-check benchmark: what resolving a request's credential costs, per check, for an
// API key found in the node's cache (hash + cache + one Redis EXISTS for the revocation marker), an API
// key the node has not cached (a PostgreSQL lookup), and a session JWT (HS256 verify + one Redis GET).
// Each is measured one at a time (latency, round trips included) and 64 in flight (throughput: what a
// busy node pays per request). Runs against a throwaway database and Redis prefix, removed at the end.
// Run alone: npm run bench -- auth
import { randomBytes } from 'node:crypto'
import pino from 'pino'
import { Identity } from '../src/auth/identity.js'
import { redisKeys } from '../src/bus/keys.js'
import { connectRedis } from '../src/bus/redis.js'
import { loadConfig } from '../src/config/env.js'
import { systemClock } from '../src/domain/clock.js'
import { applyMigrations, dropDatabase, ensureDatabase, withDatabase } from '../src/store/migrate.js'
import { createPool } from '../src/store/pg.js'
import { createPrisma } from '../src/store/prisma.js'

const SEQUENTIAL = 5_000
const CONCURRENT = 20_000
const IN_FLIGHT = 64

const fmt = (us: number) => us.toLocaleString('en-US', { maximumFractionDigits: us < 10 ? 2 : us < 100 ? 1 : 0 })

async function perCheck(count: number, inFlight: number, check: () => Promise<unknown>): Promise<number> {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await check()
    }),
  )
  return ((performance.now() - start) * 1_000) / count
}

export async function benchAuth(): Promise<void> {
  const base = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres'
  const databaseUrl = withDatabase(base, `exch_bench_auth_${randomBytes(4).toString('hex')}`)
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, REDIS_PREFIX: `bench:${randomBytes(4).toString('hex')}:` })
  const log = pino({ level: 'error' })
  await ensureDatabase(databaseUrl)
  const pool = await createPool(databaseUrl)
  const prisma = createPrisma(pool)
  const redis = await connectRedis(config.redisUrl, 'bench-auth')
  try {
    await applyMigrations(databaseUrl)
    const keys = redisKeys(config.redisPrefix)
    const identity = new Identity({ config, log, prisma, redis, keys, clock: systemClock })
    const user = await identity.users.signedIn('0x982d6Ef43201A9532274b2765334eeAfbf8A7334')
    const { secret } = await identity.apiKeys.create(user.id, { name: 'bench', scope: 'trade', allowedIps: ['127.0.0.1'], expiresInDays: 0 }, { ip: '127.0.0.1', userAgent: null })
    const session = await identity.sessions.issue({ userId: user.id, address: user.address })
    const request = (authorization: string) => ({ authorization, sessionCookie: undefined, ip: '127.0.0.1', userAgent: 'bench' })
    const keyRequest = request(`Bearer ${secret}`)
    const jwtRequest = request(`Bearer ${session.token}`)
    const check = async (r: ReturnType<typeof request>) => {
      const result = await identity.credentials.resolve(r)
      if (!result.principal) throw new Error(`credential refused: ${result.error?.message}`)
    }
    const cached = () => check(keyRequest)
    const miss = () => {
      identity.keyAuth.clearCache()
      return check(keyRequest)
    }
    const jwt = () => check(jwtRequest)

    // Warm-up: JIT, connection pools, prepared statements.
    for (const f of [cached, miss, jwt]) await perCheck(1_000, 8, f)

    const rows: Array<[string, number, number]> = []
    for (const [name, f, n] of [['api key (cached)', cached, 1], ['api key (cache miss)', miss, 10], ['jwt', jwt, 1]] as const) {
      rows.push([name, await perCheck(SEQUENTIAL / n, 1, f), await perCheck(CONCURRENT / n, IN_FLIGHT, f)])
    }
    await identity.keyAuth.idle()
    for (const [name, one, many] of rows) {
      console.log(`auth: ${name.padEnd(21)} ${fmt(one).padStart(6)} µs/check one at a time, ${fmt(many).padStart(6)} µs/check at ${IN_FLIGHT} in flight`)
    }
    const line = (i: number) => `${fmt(rows[i]![2])} µs/check`
    console.log(`auth: api key (cached) ${line(0)}, api key (miss) ${line(1)}, jwt ${line(2)} (at ${IN_FLIGHT} in flight)`)
  } finally {
    let cursor = '0'
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${config.redisPrefix}*`, 'COUNT', 1000)
      if (found.length > 0) await redis.del(...found)
      cursor = next
    } while (cursor !== '0')
    redis.disconnect()
    await prisma.$disconnect()
    await pool.end()
    await dropDatabase(databaseUrl)
  }
}
