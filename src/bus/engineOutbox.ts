// Everything the engine tells Redis after a batch is durable: the depth and mark mirrors first (so a
// client that has its reply reads a book that already shows its order), then the events, then the replies.
import type { Redis } from 'ioredis'
import type { Changes } from '../engine/changes.js'
import type { EngineState } from '../engine/state.js'
import { envelopeJson, PUBLISH_EVENT_LUA, REPLAY_FRAMES } from './eventLog.js'
import type { RedisKeys } from './keys.js'
import { bookSnapshot, bookSnapshotJson, fundingView, markView } from './mirrors.js'
import { defineScript } from './script.js'

function fundingViews(state: EngineState, marketIds: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>()
  for (const id of marketIds) {
    const m = state.markets.get(id)
    if (m?.perp) out.set(id, JSON.stringify(fundingView(m, state.now)))
  }
  return out
}

// One script publishes the whole batch, in the order readers rely on: mirrors, then events, then replies.
// One command and one round trip instead of three (a round trip costs the engine's process ~30 µs of CPU
// in system calls and wake-ups, and ioredis a Pipeline object each), and atomic: no reader sees a reply
// before its book. On NOSCRIPT nothing has run and EVAL runs all of it (src/bus/script.ts).
// A mirror that fails (pcall) is skipped, as a failed command of the mirrors' pipeline was; an event
// whose log refuses its id (already published) is not published again (see eventLog.ts).
// KEYS[1..b]          the changed books' depth mirrors
// KEYS[b+1], KEYS[b+2] the marks and funding hashes
// KEYS[b+2+i]         event i's replay log
// ARGV[1..5]          b, mark fields, funding fields, events, reply channels (counts)
// ARGV[6]             approximate MAXLEN of every log
// ARGV[7..]           b book snapshots; marks (field, value)…; funding (field, value)…;
//                     events (live channel, eventSeq, envelope JSON)…; replies (channel, JSON)…
// Returns the number of events published.
const publish = defineScript(`${PUBLISH_EVENT_LUA}local nb, nm, nf, ne, nr = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local a = 7
for i = 1, nb do
  redis.pcall('SET', KEYS[i], ARGV[a])
  a = a + 1
end
for i = 1, nm do
  redis.pcall('HSET', KEYS[nb + 1], ARGV[a], ARGV[a + 1])
  a = a + 2
end
for i = 1, nf do
  redis.pcall('HSET', KEYS[nb + 2], ARGV[a], ARGV[a + 1])
  a = a + 2
end
local published = 0
for i = 1, ne do
  published = published + publishEvent(KEYS[nb + 2 + i], ARGV[6], ARGV[a], ARGV[a + 1], ARGV[a + 2])
  a = a + 3
end
for i = 1, nr do
  redis.call('PUBLISH', ARGV[a], ARGV[a + 1])
  a = a + 2
end
return published`)

/** A batch's publication, written from the state as the batch left it (the engine may have moved on since). */
export interface SealedPublication {
  readonly keys: string[]
  /** Empty when the batch has nothing to publish. */
  readonly args: Array<string | number>
  /** Replies to `localNode`, left out of the script: handed over in-process once the script has run. */
  readonly local: LocalReply[]
}

export interface LocalReply {
  id: string
  reply: unknown
}

/**
 * Seals the batch's publication. Replies addressed to `localNode` (the API of this very process) skip
 * Redis: they are handed over after the script has run, so their callers still see the batch's books
 * and events first, and nobody serializes, sends, receives and parses them again.
 */
export function sealPublication(keys: RedisKeys, state: EngineState, changes: Changes, localNode: string | null = null): SealedPublication {
  const keyList: string[] = []
  const args: Array<string | number> = [changes.books.size, 0, 0, changes.events.length, 0, REPLAY_FRAMES]
  for (const id of changes.books) {
    keyList.push(keys.book(id))
    args.push(bookSnapshotJson(state.markets.get(id)!, state.now))
  }
  keyList.push(keys.marks, keys.funding)
  if (changes.marks.length > 0) {
    const latest = new Map(changes.marks.map((m) => [m.marketId, JSON.stringify(markView(m))]))
    for (const [id, json] of latest) args.push(id, json)
    args[1] = latest.size
  }
  const funding = fundingViews(state, changes.markets)
  for (const [id, json] of funding) args.push(id, json)
  args[2] = funding.size
  for (const e of changes.events) {
    keyList.push(keys.eventLog(e.stream))
    args.push(keys.eventChannel(e.stream), e.eventSeq, envelopeJson(e))
  }
  const local: LocalReply[] = []
  if (changes.replies.length > 0) {
    const byNode = new Map<string, LocalReply[]>()
    for (const r of changes.replies) {
      if (r.replyTo === localNode) {
        local.push({ id: r.id, reply: r.reply })
        continue
      }
      let list = byNode.get(r.replyTo)
      if (!list) byNode.set(r.replyTo, (list = []))
      list.push({ id: r.id, reply: r.reply })
    }
    for (const [node, list] of byNode) args.push(keys.replies(node), JSON.stringify(list))
    args[4] = byNode.size
  }
  return { keys: keyList, args: args.length === 6 ? [] : args, local }
}

/** Runs a sealed publication's script; its local replies are the caller's to hand over after it. */
export async function sendPublication(redis: Redis, sealed: SealedPublication): Promise<void> {
  if (sealed.args.length > 0) await publish(redis, sealed.keys, sealed.args)
}

/** Seals and sends in one step (every reply through Redis): for callers that apply nothing meanwhile. */
export function publishBatch(redis: Redis, keys: RedisKeys, state: EngineState, changes: Changes): Promise<void> {
  return sendPublication(redis, sealPublication(keys, state, changes))
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
