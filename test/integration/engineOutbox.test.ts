// What the engine publishes after a batch, against a real Redis: the depth and mark mirrors, each event
// in its replay log and on its live channel, the replies on their node's channel; in that order (a
// client holding its reply reads a book that shows its order), and once (a batch published again after
// a restart re-sends its replies, not its events), with Redis' script cache flushed or not.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publishBatch } from '../../src/bus/engineOutbox.js'
import { redisKeys } from '../../src/bus/keys.js'
import { readBook, readFunding, readMarks } from '../../src/bus/mirrors.js'
import { connectRedis } from '../../src/bus/redis.js'
import { REDIS_URL } from '../support/exchange.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'

let redis: Redis
let sub: Redis
const keys = redisKeys(`outbox-test:${randomUUID()}:`)

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL, 'outbox-test')
  sub = await connectRedis(REDIS_URL, 'outbox-test-sub')
})
afterAll(async () => {
  const found = await redis.keys(`${keys.prefix}*`)
  if (found.length > 0) await redis.del(...found)
  redis?.disconnect()
  sub?.disconnect()
})

describe('publishBatch', () => {
  it('publishes mirrors, then events, then replies, and a batch published again re-sends only its replies', async () => {
    const h = new TradingHarness()
    h.fund('alice')
    h.engine.takeChanges()
    const order = h.placeOk('alice', { side: 'buy', price: '94000', quantity: '0.5' })
    h.marks({ BTC: '95100' })
    const changes = h.engine.takeChanges()
    expect(changes.events.length).toBeGreaterThan(1)
    expect(changes.replies.length).toBe(2)

    // What a subscriber sees, in order; on the reply, what the mirrors and the order's log say at once.
    const seen: string[] = []
    let onReply: Promise<unknown> | null = null
    const channels = [keys.replies('test'), ...new Set(changes.events.map((e) => keys.eventChannel(e.stream)))]
    await sub.subscribe(...channels)
    sub.on('message', (channel: string, message: string) => {
      seen.push(channel === keys.replies('test') ? 'reply' : (JSON.parse(message) as { eventId: string }).eventId)
      if (channel === keys.replies('test') && !onReply) {
        onReply = Promise.all([readBook(redis, keys, PERP), redis.xlen(keys.eventLog(changes.events[0]!.stream))])
      }
    })
    const published = new Promise<void>((resolve) => {
      const check = () => (seen.filter((s) => s === 'reply').length >= 2 ? resolve() : setTimeout(check, 5))
      check()
    })

    await publishBatch(redis, keys, h.engine.state, changes)
    await redis.script('FLUSH')
    await publishBatch(redis, keys, h.engine.state, changes)
    await published

    const eventIds = changes.events.map((e) => `${e.eventType}-${e.eventSeq}-${e.engineTs}`)
    expect(seen).toEqual([...eventIds, 'reply', 'reply'])
    const [book, logLength] = (await onReply!) as [Awaited<ReturnType<typeof readBook>>, number]
    expect(book!.bids).toContainEqual([order.price, order.quantity])
    expect(logLength).toBeGreaterThan(0)
    for (const e of changes.events) {
      const log = await redis.xrange(keys.eventLog(e.stream), '-', '+')
      expect(log.filter(([id]) => id === `0-${e.eventSeq}`)).toHaveLength(1)
    }
    expect((await readMarks(redis, keys)).get('BTC-USDC-SPOT')?.price).toBe('95100')
    expect((await readFunding(redis, keys)).has(PERP)).toBe(true)
  })
})
