// The command bus appends the submits of one loop turn in one script call: each envelope lands once,
// in submission order, with the epoch read atomically with it, and each submit gets its own reply; an
// append that fails fails its submit, and leaves nothing pending.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommandBus, type Submitted } from '../../src/bus/commandBus.js'
import { redisKeys } from '../../src/bus/keys.js'
import { connectRedis } from '../../src/bus/redis.js'
import type { Command, CommandEnvelope } from '../../src/engine/commands.js'
import { REDIS_URL } from '../support/exchange.js'

const keys = redisKeys(`bus-test:${randomUUID()}:`)
let redis: Redis
let sub: Redis
let bus: CommandBus
const timedOut: Submitted[] = []

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL, 'bus-test')
  sub = await connectRedis(REDIS_URL, 'bus-test-sub')
  bus = await CommandBus.start(redis, sub, keys, 'node-1', 60_000, async (s) => {
    timedOut.push(s)
    return { ok: false, code: 'OUTCOME_UNKNOWN', message: 'timed out' }
  })
})
afterAll(async () => {
  await bus?.close()
  const left = await redis?.keys(`${keys.prefix}*`)
  if (left?.length) await redis.del(...left)
  redis?.disconnect()
  sub?.disconnect()
})

const transfer = (n: number): Command => ({ type: 'Transfer', userId: `user-${n}`, from: 'wallet', to: 'spot', amountMicro: String(n) })

/** Plays the engine: reads every entry after `after`, answers each on its reply channel with its own number. */
async function engineAnswers(after: string): Promise<Array<{ streamId: string; env: CommandEnvelope }>> {
  const entries = (await redis.xrange(keys.commands, after === '0' ? '-' : `(${after}`, '+')).map(([streamId, fields]) => ({
    streamId,
    env: JSON.parse(fields[1]!) as CommandEnvelope,
  }))
  const replies = entries.map(({ env }) => ({ id: env.id, reply: { ok: true, value: { amount: (env.cmd as { amountMicro: string }).amountMicro } } }))
  await redis.publish(keys.replies('node-1'), JSON.stringify(replies))
  return entries
}

describe('CommandBus', () => {
  it('appends one turn\'s submits in order, each once under the epoch, and gives each its own reply', async () => {
    await redis.set(keys.epoch, 'epoch-7')
    const n = 300 // past one script call's batch
    const replies = Array.from({ length: n }, (_, i) => bus.submit(transfer(i), { correlationId: `c-${i}` }))
    // All in the stream before any reply comes: wait for them, then answer.
    let entries: Array<{ streamId: string; env: CommandEnvelope }> = []
    for (let tries = 0; entries.length < n && tries < 1000; tries++) {
      await new Promise((resolve) => setImmediate(resolve))
      if ((await redis.xlen(keys.commands)) >= n) entries = await engineAnswers('0')
    }
    expect(entries.map((e) => (e.env.cmd as { amountMicro: string }).amountMicro)).toEqual(Array.from({ length: n }, (_, i) => String(i)))
    expect(entries.map((e) => e.env.correlationId)).toEqual(Array.from({ length: n }, (_, i) => `c-${i}`))
    expect(new Set(entries.map((e) => e.env.id)).size).toBe(n)
    expect(entries.every((e) => e.env.replyTo === 'node-1')).toBe(true)
    expect(await Promise.all(replies)).toEqual(Array.from({ length: n }, (_, i) => ({ ok: true, value: { amount: String(i) } })))
    expect(timedOut).toEqual([])
  })

  it('fails every submit whose append fails, and keeps nothing pending for them', async () => {
    const stream = keys.commands
    await redis.del(stream)
    await redis.set(stream, 'not a stream') // XADD answers WRONGTYPE
    const results = await Promise.allSettled([bus.submit(transfer(1)), bus.submit(transfer(2))])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/)
    expect((bus as unknown as { pending: Map<string, unknown> }).pending.size).toBe(0)
    await redis.del(stream)
    // The next turn appends as usual.
    const reply = bus.submit(transfer(3))
    let entries: Array<{ streamId: string; env: CommandEnvelope }> = []
    while (entries.length === 0) {
      await new Promise((resolve) => setImmediate(resolve))
      if ((await redis.xlen(stream)) > 0) entries = await engineAnswers('0')
    }
    expect(await reply).toEqual({ ok: true, value: { amount: '3' } })
  })

  it('tells the timeout handler each submit\'s own stream id and the epoch it was appended under', async () => {
    await redis.set(keys.epoch, 'epoch-8')
    const seen: Submitted[] = []
    const sub2 = await connectRedis(REDIS_URL, 'bus-test-sub2')
    const quiet = await CommandBus.start(redis, sub2, keys, 'node-2', 1, async (s) => {
      seen.push(s)
      return { ok: false, code: 'OUTCOME_UNKNOWN', message: 'timed out' }
    })
    try {
      const before = (await redis.xrevrange(keys.commands, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0'
      await Promise.all([quiet.submit(transfer(10)), quiet.submit(transfer(11)), quiet.submit(transfer(12))])
      const entries = await redis.xrange(keys.commands, before === '0' ? '-' : `(${before}`, '+')
      expect(seen.map((s) => s.epoch)).toEqual(['epoch-8', 'epoch-8', 'epoch-8'])
      const byId = new Map(seen.map((s) => [s.env.id, s.streamId]))
      expect(entries.map(([streamId, fields]) => byId.get((JSON.parse(fields[1]!) as CommandEnvelope).id) === streamId)).toEqual([true, true, true])
    } finally {
      await quiet.close()
      sub2.disconnect()
    }
  })
})
