// Read models the engine keeps in Redis after every batch, so any API node answers public reads
// without asking the engine: the depth of each book and the latest mark of each market.
import type { Redis } from 'ioredis'
import { BUY, SELL } from '../engine/book/types.js'
import type { MarketRuntime } from '../engine/marketRuntime.js'
import { estimatedRate, rateString } from '../engine/perpetual.js'
import type { Mark } from '../engine/state.js'
import { isoTime } from '../engine/views.js'
import type { RedisKeys } from './keys.js'

/** The spec's orderbook snapshot. */
export interface BookSnapshot {
  marketId: string
  sequence: number
  bids: Array<[string, string]>
  asks: Array<[string, string]>
  timestamp: string
}

export interface MarkView {
  marketId: string
  price: string
  indexPrice: string | null
  source: string
  sourceTimestamp: number
  engineTs: number
}

/** A perpetual's funding as market statistics show it. */
export interface FundingView {
  /** The current period's rate so far (time-weighted premium, clamped). */
  fundingRate: string
  nextFundingAtMs: number
}

export function fundingView(m: MarketRuntime, now: number): FundingView {
  return { fundingRate: rateString(estimatedRate(m, now)), nextFundingAtMs: m.perp!.periodEnd }
}

export async function readFunding(redis: Redis, keys: RedisKeys): Promise<Map<string, FundingView>> {
  const all = await redis.hgetall(keys.funding)
  return new Map(Object.entries(all).map(([id, raw]) => [id, JSON.parse(raw) as FundingView]))
}

export function bookSnapshot(market: MarketRuntime, nowMs: number): BookSnapshot {
  const fmt = (levels: Array<[number, number]>) =>
    levels.map(([p, q]): [string, string] => [market.prices.format(p), market.quantities.format(q)])
  return {
    marketId: market.spec.id,
    sequence: market.bookSeq,
    bids: fmt(market.book.depth(BUY)),
    asks: fmt(market.book.depth(SELL)),
    timestamp: new Date(nowMs).toISOString(),
  }
}

/** `JSON.stringify(bookSnapshot(market, nowMs))`, written without the snapshot's arrays of pairs: the engine
 * mirrors every changed book once per batch. Prices and sizes are digits, a point and a sign: nothing to
 * escape. */
export function bookSnapshotJson(market: MarketRuntime, nowMs: number): string {
  const side = (levels: Array<[number, number]>) => {
    let out = '['
    for (let i = 0; i < levels.length; i++) {
      const [p, q] = levels[i]!
      out += `${i === 0 ? '' : ','}["${market.prices.format(p)}","${market.quantities.format(q)}"]`
    }
    return `${out}]`
  }
  return `{"marketId":${JSON.stringify(market.spec.id)},"sequence":${market.bookSeq},"bids":${side(market.book.depth(BUY))},` +
    `"asks":${side(market.book.depth(SELL))},"timestamp":"${isoTime(nowMs)}"}`
}

export function markView(m: Mark): MarkView {
  return {
    marketId: m.marketId,
    price: m.price,
    indexPrice: m.indexPrice,
    source: m.source,
    sourceTimestamp: m.sourceTs,
    engineTs: m.engineTs,
  }
}

export async function readBook(redis: Redis, keys: RedisKeys, marketId: string): Promise<BookSnapshot | null> {
  const raw = await redis.get(keys.book(marketId))
  return raw ? (JSON.parse(raw) as BookSnapshot) : null
}

export async function readMarks(redis: Redis, keys: RedisKeys): Promise<Map<string, MarkView>> {
  const all = await redis.hgetall(keys.marks)
  const out = new Map<string, MarkView>()
  for (const [id, raw] of Object.entries(all)) out.set(id, JSON.parse(raw) as MarkView)
  return out
}
