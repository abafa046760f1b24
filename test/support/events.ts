// Awaiting engine events in tests: subscribe to a stream's Redis channel first, then act, then await
// the envelope that satisfies a condition (no sleeping, no polling).
//   const seen = await watchEvent(ex, 'prices:BTC-PERP', (e) => e.sourceTs! > t); …act…; await seen.event
import { connectRedis } from '../../src/bus/redis.js'
import type { EventEnvelope } from '../../src/bus/eventLog.js'
import type { TestExchange } from './exchange.js'
import { REDIS_URL } from './exchange.js'

/**
 * Resolves once subscribed to a watch whose `event` is the first matching envelope. (Wrapped: an async
 * function cannot resolve to a promise, it would wait for the event before the caller could act.)
 */
export async function watchEvent(ex: TestExchange, stream: string, accept: (e: EventEnvelope) => boolean, timeoutMs = 15_000): Promise<{ event: Promise<EventEnvelope> }> {
  const sub = await connectRedis(REDIS_URL, 'test-events')
  const channel = ex.keys.eventChannel(stream)
  let settle!: (e: EventEnvelope | Error) => void
  const result = new Promise<EventEnvelope>((resolve, reject) => {
    settle = (e) => (e instanceof Error ? reject(e) : resolve(e))
  }).finally(() => {
    clearTimeout(timer)
    sub.disconnect()
  })
  const timer = setTimeout(() => settle(new Error(`no matching ${stream} event within ${timeoutMs} ms`)), timeoutMs)
  sub.on('message', (ch: string, msg: string) => {
    if (ch !== channel) return
    const e = JSON.parse(msg) as EventEnvelope
    if (accept(e)) settle(e)
  })
  await sub.subscribe(channel)
  return { event: result }
}
