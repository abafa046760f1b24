// Owns the top of one book as a stream (/ws/quotes): this node follows the book (snapshot, then deltas,
// gap-free through a Tail), keeps its levels, and publishes a Quote whenever the best bid or ask, or the
// size at either, changes. A quote is state, not history: a subscriber's first frame is the current top,
// and its eventSeq is the book sequence it was taken at, so it is the same on every node.
import { streams } from '../engine/events.js'
import type { BookPayload } from '../engine/payloads.js'
import type { EventHub } from './eventHub.js'
import { makeFrame, type Frame } from './frame.js'
import type { OpenStream, Subscriber } from './subscriber.js'
import { Tail } from './tail.js'

export interface QuotePayload {
  kind: 'quote'
  marketId: string
  sequence: number
  bid: string | null
  bidSize: string | null
  ask: string | null
  askSize: string | null
}

/** One side's levels and its best price (highest bid, lowest ask). */
class Side {
  readonly levels = new Map<string, string>()
  best: string | null = null

  constructor(private readonly better: (a: number, b: number) => boolean) {}

  reset(levels: Array<[string, string]>): void {
    this.levels.clear()
    for (const [p, s] of levels) this.levels.set(p, s)
    this.rescan()
  }

  set(price: string, size: string): void {
    if (size === '0' || Number(size) === 0) {
      this.levels.delete(price)
      if (price === this.best) this.rescan()
    } else {
      this.levels.set(price, size)
      if (this.best === null || this.better(Number(price), Number(this.best))) this.best = price
    }
  }

  private rescan(): void {
    let best: string | null = null
    for (const p of this.levels.keys()) if (best === null || this.better(Number(p), Number(best))) best = p
    this.best = best
  }
}

export class QuoteFeed {
  private readonly bids = new Side((a, b) => a > b)
  private readonly asks = new Side((a, b) => a < b)
  private top: Frame | null = null
  private topKey = ''
  private readonly subs = new Set<Subscriber>()
  private tail: Tail | null = null
  private closed = false

  private constructor(
    readonly marketId: string,
    private readonly onIdle: () => void,
  ) {}

  static async open(hub: EventHub, marketId: string, snapshot: () => Promise<Frame>, onIdle: () => void): Promise<QuoteFeed> {
    const feed = new QuoteFeed(marketId, onIdle)
    feed.tail = await Tail.open({
      hub,
      stream: streams.book(marketId),
      snapshot,
      emit: (f) => feed.apply(f),
      fail: (err) => feed.fail(err),
    })
    return feed
  }

  /** Null when the feed has just gone idle: the caller opens a new one. */
  subscribe(sub: Subscriber): OpenStream | null {
    if (this.closed) return null
    if (this.top) sub.frame(this.top)
    this.subs.add(sub)
    return {
      close: () => {
        if (this.subs.delete(sub) && this.subs.size === 0) this.close()
      },
      resync: () => {
        if (this.top) sub.frame(this.top)
      },
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.tail?.close()
    this.onIdle()
  }

  private fail(err: unknown): void {
    for (const sub of this.subs) sub.end(err)
    this.subs.clear()
    this.close()
  }

  private apply(f: Frame): void {
    const p = f.env.payload as BookPayload
    if (p.kind === 'snapshot') {
      this.bids.reset(p.bids ?? [])
      this.asks.reset(p.asks ?? [])
    } else {
      for (const c of p.changes ?? []) (c.side === 'bid' ? this.bids : this.asks).set(c.price, c.size)
    }
    const bid = this.bids.best
    const ask = this.asks.best
    const bidSize = bid === null ? null : this.bids.levels.get(bid)!
    const askSize = ask === null ? null : this.asks.levels.get(ask)!
    const key = `${bid}|${bidSize}|${ask}|${askSize}`
    if (key === this.topKey) return
    this.topKey = key
    const payload: QuotePayload = { kind: 'quote', marketId: this.marketId, sequence: f.env.eventSeq, bid, bidSize, ask, askSize }
    this.top = makeFrame({
      eventType: 'Quote',
      eventSeq: f.env.eventSeq,
      engineTs: f.env.engineTs,
      correlationId: f.env.correlationId,
      causationId: f.env.eventId,
      payload,
    })
    for (const sub of this.subs) sub.frame(this.top)
  }
}
