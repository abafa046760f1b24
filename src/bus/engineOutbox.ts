// Everything the engine tells Redis after a batch is durable: the depth and mark mirrors first (so a
// client that has its reply reads a book that already shows its order), then the events, then the replies.
import type { Redis } from 'ioredis'
import type { Changes } from '../engine/changes.js'
import type { EngineState } from '../engine/state.js'
import { publishEvents } from './eventLog.js'
import type { RedisKeys } from './keys.js'
import { bookSnapshot, fundingView, markView } from './mirrors.js'

function fundingViews(state: EngineState, marketIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const id of marketIds) {
    const m = state.markets.get(id)
    if (m?.perp) out.set(id, JSON.stringify(fundingView(m, state.now)))
  }
  return out
}

export async function publishBatch(redis: Redis, keys: RedisKeys, state: EngineState, changes: Changes): Promise<void> {
  const mirrors = redis.pipeline()
  for (const id of changes.books) {
    mirrors.set(keys.book(id), JSON.stringify(bookSnapshot(state.markets.get(id)!, state.now)))
  }
  if (changes.marks.length > 0) {
    const latest = new Map(changes.marks.map((m) => [m.marketId, JSON.stringify(markView(m))]))
    mirrors.hset(keys.marks, Object.fromEntries(latest))
  }
  const funding = fundingViews(state, [...changes.markets])
  if (funding.size > 0) mirrors.hset(keys.funding, Object.fromEntries(funding))
  if (mirrors.length > 0) await mirrors.exec()
  await publishEvents(redis, keys, changes.events)
  if (changes.replies.length > 0) {
    const byNode = new Map<string, Array<{ id: string; reply: unknown }>>()
    for (const r of changes.replies) {
      let list = byNode.get(r.replyTo)
      if (!list) byNode.set(r.replyTo, (list = []))
      list.push({ id: r.id, reply: r.reply })
    }
    const replies = redis.pipeline()
    for (const [node, list] of byNode) replies.publish(keys.replies(node), JSON.stringify(list))
    await replies.exec()
  }
}

/** Rewrites every mirror from the state: after recovery the Redis copies may be stale or gone. */
export async function rewriteMirrors(redis: Redis, keys: RedisKeys, state: EngineState): Promise<void> {
  const p = redis.pipeline()
  for (const market of state.markets.values()) {
    p.set(keys.book(market.spec.id), JSON.stringify(bookSnapshot(market, state.now)))
  }
  p.del(keys.marks)
  if (state.marks.size > 0) {
    p.hset(keys.marks, Object.fromEntries([...state.marks.values()].map((m) => [m.marketId, JSON.stringify(markView(m))])))
  }
  const funding = fundingViews(state, [...state.markets.keys()])
  if (funding.size > 0) p.hset(keys.funding, Object.fromEntries(funding))
  await p.exec()
}
