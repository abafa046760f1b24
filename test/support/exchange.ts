// Starts a real exchange for a test: its own database (cloned from the run's migrated template), its own
// Redis key prefix, HTTP on a free port, logs captured in memory. close() stops it and removes both.
//   const ex = await startTestExchange({ ROLES: 'api,engine,scheduler' }); afterAll(() => ex.close())
//   const h = exchangeFor({ MARK_STALE_MS: '3600000' }) // in a describe block; h.ex and h.api in its tests
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, inject } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import { loadConfig } from '../../src/config/env.js'
import { startExchange, type Exchange, type StartOptions } from '../../src/server.js'
import { testClock } from './clock.js'
import { http, type Http } from './http.js'
import { registerOrderPathRoute } from './orderPathRoute.js'
import { createTestDatabase, type TestDatabase } from './testDb.js'

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789'

/** Headers of an operator call. */
export const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

export const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379'

export interface TestExchange extends Exchange {
  readonly db: TestDatabase
  /** Every log line this exchange wrote, as JSON text. */
  readonly logs: string[]
  close(): Promise<void>
}

export interface TestExchangeOptions extends StartOptions {
  /** Share a database with another exchange (a second engine or API node); not dropped on close. */
  db?: TestDatabase
  /** Share a Redis prefix with another exchange; not cleaned on close. */
  redisPrefix?: string
}

export function newRedisPrefix(): string {
  return `t:${inject('runId')}:${randomBytes(4).toString('hex')}:`
}

/** Deletes every key under a prefix. */
export async function clearRedisPrefix(prefix: string): Promise<void> {
  const redis = await connectRedis(REDIS_URL, 'test-cleanup')
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

export async function startTestExchange(env: Record<string, string> = {}, opts: TestExchangeOptions = {}): Promise<TestExchange> {
  const db = opts.db ?? (await createTestDatabase())
  const prefix = opts.redisPrefix ?? newRedisPrefix()
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    MARK_FEED: 'push',
    SIM_MAKER: 'false',
    // The production lease: a shorter one is lost whenever a loaded machine stalls the event loop for
    // a second, handing the engine, scheduler or simulator to another instance mid-test. Tests of
    // failover set their own.
    ENGINE_LEASE_MS: '5000',
    LOG_LEVEL: 'info',
    ...env,
  })
  const log = pino({ level: config.logLevel }, sink)
  const extraRoutes: StartOptions['extraRoutes'] = (app, services) => {
    registerOrderPathRoute(app)
    opts.extraRoutes?.(app, services)
  }
  const exchange = await startExchange(config, { clock: testClock.now, ...opts, extraRoutes, log })
  return {
    ...exchange,
    db,
    logs,
    async close() {
      await exchange.stop()
      if (!opts.redisPrefix) await clearRedisPrefix(prefix)
      if (!opts.db) await db.drop()
    },
  }
}

/**
 * An exchange for one describe block (ROLES api,engine,scheduler unless `env` names others): started
 * before its tests, `ready` run once it serves, closed after them.
 */
export function exchangeFor(env: Record<string, string> = {}, ready?: (api: Http) => Promise<unknown>): { ex: TestExchange; api: Http } {
  const h = {} as { ex: TestExchange; api: Http }
  beforeAll(async () => {
    h.ex = await startTestExchange({ ROLES: 'api,engine,scheduler', ...env })
    h.api = http(h.ex.url!)
    await ready?.(h.api)
  })
  afterAll(() => h.ex?.close())
  return h
}
