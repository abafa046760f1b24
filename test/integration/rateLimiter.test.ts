// The GCRA Lua script against a real Redis with a pinned clock: the burst, the refill, fractional
// intervals, refused calls not advancing the pool, and the figures reported back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import { OrderRateLimiter } from '../../src/bus/rateLimiter.js'
import { clearRedisPrefix, newRedisPrefix, REDIS_URL } from '../support/exchange.js'
import type { Redis } from 'ioredis'

let redis: Redis
let prefix: string
let now = 0
let n = 0

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL, 'rate-test')
  prefix = newRedisPrefix()
})
afterAll(async () => {
  redis?.disconnect()
  await clearRedisPrefix(prefix)
})

/** A limiter on a fresh user key, clock at `now`. */
function limiter() {
  const user = `u${++n}`
  const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`, () => now)
  return (limit: number) => l.consume(user, limit)
}

describe('GCRA order-rate script', () => {
  it.each([120, 1200, 7, 840, 12_000])('admits exactly %i calls at one instant, then one per interval', async (limit) => {
    now = 1_700_000_000_000
    const consume = limiter()
    const decisions = []
    for (let i = 0; i < limit; i++) decisions.push(await consume(limit))
    expect(decisions.every((d) => d.allowed)).toBe(true)
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: limit }, (_, i) => limit - 1 - i))
    const refused = await consume(limit)
    const interval = 60_000 / limit
    expect(refused).toEqual({ allowed: false, limit, remaining: 0, retryAfterMs: Math.ceil(interval), resetMs: 60_000 })
    now += Math.ceil(interval)
    expect((await consume(limit)).allowed).toBe(true)
    expect((await consume(limit)).allowed).toBe(false)
  })

  it('is exact on a pinned clock however slowly the calls arrive', async () => {
    now = 1_700_000_000_000
    const consume = limiter()
    expect(await consume(12_000)).toMatchObject({ allowed: true, remaining: 11_999 })
    // Longer than the 5 ms this first call's pool needs to refill in Redis' time: a slow machine
    // between two calls. The pinned clock has not moved, so nothing has refilled.
    await new Promise((resolve) => setTimeout(resolve, 25))
    expect(await consume(12_000)).toMatchObject({ allowed: true, remaining: 11_998 })
  })

  it('does not advance the pool on refused calls', async () => {
    now = 1_700_000_000_000
    const consume = limiter()
    for (let i = 0; i < 120; i++) await consume(120)
    for (let i = 0; i < 50; i++) expect((await consume(120)).allowed).toBe(false)
    now += 500
    expect(await consume(120)).toMatchObject({ allowed: true, remaining: 0 })
  })

  it('refills continuously: half a minute idle gives back half the pool', async () => {
    now = 1_700_000_000_000
    const consume = limiter()
    for (let i = 0; i < 120; i++) await consume(120)
    now += 30_000
    let passed = 0
    while ((await consume(120)).allowed) passed++
    expect(passed).toBe(60)
  })

  it('charges nothing while the marker key exists, and as consume() without it', async () => {
    now = 1_700_000_000_000
    const user = `u${++n}`
    const marker = `${prefix}marker:${user}`
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`, () => now)
    expect(await l.consumeUnless(marker, user, 120)).toMatchObject({ allowed: true, remaining: 119 })
    await redis.set(marker, '1')
    for (let i = 0; i < 5; i++) expect(await l.consumeUnless(marker, user, 120)).toBeNull()
    await redis.del(marker)
    expect(await l.consume(user, 120)).toMatchObject({ allowed: true, remaining: 118 })
  })

  it('reports the time until the pool is full again', async () => {
    now = 1_700_000_000_000
    const user = `u${++n}`
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`, () => now)
    for (let i = 0; i < 10; i++) expect((await l.consume(user, 120)).resetMs).toBe((i + 1) * 500)
  })

  it('on Redis’ clock, expires the key when the pool is full again', async () => {
    const user = `u${++n}`
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`)
    let last!: Awaited<ReturnType<typeof l.consume>>
    for (let i = 0; i < 10; i++) last = await l.consume(user, 120)
    // Redis' time, the TTL and the TAT read in one transaction, at one instant of Redis' clock.
    const [[, time], [, ttl], [, tat]] = (await redis.multi().time().pttl(`${prefix}rate:${user}`).get(`${prefix}rate:${user}`).exec()) as [
      [null, [string, string]], [null, number], [null, string],
    ]
    const redisNow = Number(time[0]) * 1000 + Number(time[1]) / 1000
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(last.resetMs)
    // The key lives until the TAT, to the millisecond: the TTL is rounded up, and Redis counts expiry
    // and PTTL in whole milliseconds of its clock.
    expect(redisNow + ttl - Number(tat)).toBeGreaterThan(-1)
    expect(redisNow + ttl - Number(tat)).toBeLessThan(2)
  })

  it('uses Redis’ clock when none is given', async () => {
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`)
    const d = await l.consume(`u${++n}`, 120)
    expect(d).toMatchObject({ allowed: true, remaining: 119 })
    const tat = Number(await redis.get(`${prefix}rate:u${n}`))
    const [sec] = await redis.time()
    expect(Math.abs(tat - (Number(sec) * 1000 + 500))).toBeLessThan(2_000)
  })
})

describe('charges of one loop turn', () => {
  it('are charged in turn and answered each as calls one at a time are', async () => {
    now = 1_700_000_100_000
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`, () => now)
    const marker = `${prefix}revoked:k1`
    await redis.set(marker, '1')
    // One turn: two users drawing on pools of 3, one of them through a revoked key's marker.
    const together = await Promise.all([
      l.consume('t1', 3), l.consume('t2', 3), l.consume('t1', 3), l.consumeUnless(marker, 't1', 3),
      l.consume('t1', 3), l.consume('t1', 3), l.consumeUnless(`${prefix}revoked:none`, 't2', 3),
    ])
    const apart = new OrderRateLimiter(redis, (u) => `${prefix}rate:apart:${u}`, () => now)
    const oneByOne = [
      await apart.consume('t1', 3), await apart.consume('t2', 3), await apart.consume('t1', 3), await apart.consumeUnless(marker, 't1', 3),
      await apart.consume('t1', 3), await apart.consume('t1', 3), await apart.consumeUnless(`${prefix}revoked:none`, 't2', 3),
    ]
    expect(together).toEqual(oneByOne)
    expect(together.map((d) => d && d.allowed)).toEqual([true, true, true, null, true, false, true])
  })

  it('fail alone when their own pool cannot be read', async () => {
    now = 1_700_000_200_000
    const l = new OrderRateLimiter(redis, (u) => `${prefix}rate:${u}`, () => now)
    await redis.hset(`${prefix}rate:broken`, 'x', '1') // GET answers WRONGTYPE
    const [before, broken, after] = await Promise.allSettled([l.consume('ok1', 10), l.consume('broken', 10), l.consume('ok2', 10)])
    expect(before).toMatchObject({ status: 'fulfilled', value: { allowed: true, remaining: 9 } })
    expect(broken).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/WRONGTYPE/) }) })
    expect(after).toMatchObject({ status: 'fulfilled', value: { allowed: true, remaining: 9 } })
  })
})
