// The reference book for tests: obviously correct rather than fast. Each side is one array kept sorted
// best-first (price, then seq) by re-sorting after every insert; everything else is a linear scan.
// Its observable behaviour (results, which calls throw, drainChanges(), stateHash()) must equal OrderBook's.
import { hashBook } from '../../src/engine/book/hashBook.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side, type Taker } from '../../src/engine/book/types.js'

interface NaiveOrder {
  id: string
  owner: string
  side: Side
  price: number
  remaining: number
  seq: number
}

export class NaiveBook implements Book {
  private bids: NaiveOrder[] = []
  private asks: NaiveOrder[] = []
  private changes: Array<[Side, number]> = []

  get size(): number {
    return this.bids.length + this.asks.length
  }

  bestBid(): number | undefined {
    return this.bids[0]?.price
  }

  bestAsk(): number | undefined {
    return this.asks[0]?.price
  }

  wouldCross(side: Side, price: number): boolean {
    const best = side === BUY ? this.bestAsk() : this.bestBid()
    if (best === undefined) return false
    return side === BUY ? price >= best : price <= best
  }

  fillableLots(side: Side, limit: number, owner: string, wanted: number): number {
    if (!(wanted > 0)) return 0
    let found = 0
    for (const o of this.opposite(side)) {
      if (!acceptable(side, o.price, limit)) break
      if (o.owner !== owner) found += o.remaining
    }
    return Math.min(found, wanted)
  }

  match(taker: Taker, sink: MatchSink): number {
    if (!Number.isSafeInteger(taker.lots) || taker.lots <= 0) throw new RangeError(`bad taker lots ${taker.lots}`)
    const book = this.opposite(taker.side)
    let lots = taker.lots
    while (lots > 0 && book.length > 0) {
      const maker = book[0] as NaiveOrder
      if (!acceptable(taker.side, maker.price, taker.limit)) break
      this.touch(maker.side, maker.price)
      if (maker.owner === taker.owner) {
        book.shift()
        sink.onSelfTradeCancel(maker)
        continue
      }
      const fill = Math.min(lots, maker.remaining)
      maker.remaining -= fill
      lots -= fill
      if (maker.remaining === 0) book.shift()
      sink.onFill(maker, fill)
    }
    return lots
  }

  add(order: { id: string; owner: string; side: Side; price: number; remaining: number; seq: number }): void {
    const { id, owner, side, price, remaining, seq } = order
    if (side !== BUY && side !== SELL) throw new RangeError(`bad side ${side}`)
    if (!Number.isSafeInteger(price) || price <= 0) throw new RangeError(`bad price ${price}`)
    if (!Number.isSafeInteger(remaining) || remaining <= 0) throw new RangeError(`bad remaining ${remaining}`)
    if (!Number.isSafeInteger(seq)) throw new RangeError(`bad seq ${seq}`)
    if (this.find(id) !== undefined) throw new Error(`duplicate id ${id}`)
    if (this.wouldCross(side, price)) throw new Error(`crossing order ${id}`)
    const book = side === BUY ? this.bids : this.asks
    if (book.some((o) => o.price === price && o.seq >= seq)) throw new Error(`seq ${seq} out of order`)
    book.push({ id, owner, side, price, remaining, seq })
    book.sort((a, b) => (a.price === b.price ? a.seq - b.seq : side === BUY ? b.price - a.price : a.price - b.price))
    this.touch(side, price)
  }

  cancel(id: string): boolean {
    const order = this.find(id)
    if (order === undefined) return false
    const book = order.side === BUY ? this.bids : this.asks
    book.splice(book.indexOf(order), 1)
    this.touch(order.side, order.price)
    return true
  }

  reduce(id: string, lots: number): void {
    const order = this.find(id)
    if (order === undefined) throw new Error(`unknown id ${id}`)
    if (!Number.isSafeInteger(lots) || lots <= 0 || lots >= order.remaining) throw new RangeError(`bad reduce to ${lots}`)
    order.remaining = lots
    this.touch(order.side, order.price)
  }

  get(id: string): BookOrder | undefined {
    const order = this.find(id)
    return order === undefined ? undefined : { ...order }
  }

  /** Test hook: overwrites fields of a resting order, to prove validation catches it. */
  corrupt(id: string, fields: Partial<NaiveOrder>): void {
    Object.assign(this.find(id) as NaiveOrder, fields)
  }

  levelSize(side: Side, price: number): number {
    let total = 0
    for (const o of side === BUY ? this.bids : this.asks) if (o.price === price) total += o.remaining
    return total
  }

  depth(side: Side, maxLevels = Number.POSITIVE_INFINITY): Array<[number, number]> {
    const levels: Array<[number, number]> = []
    for (const o of side === BUY ? this.bids : this.asks) {
      const last = levels[levels.length - 1]
      if (last !== undefined && last[0] === o.price) last[1] += o.remaining
      else levels.push([o.price, o.remaining])
    }
    return levels.slice(0, Math.max(0, maxLevels))
  }

  orders(): Iterable<BookOrder> {
    return [...this.bids, ...this.asks].map((o) => ({ ...o }))
  }

  drainChanges(): Array<[Side, number]> {
    const out = this.changes
    this.changes = []
    return out
  }

  drainLevels(out: number[]): number {
    const changes = this.drainChanges()
    changes.forEach(([side, price], i) => out.splice(3 * i, 3, side, price, this.levelSize(side, price)))
    return changes.length
  }

  validateInternalState(): void {
    const ids = new Set<string>()
    for (const [side, book] of [[BUY, this.bids], [SELL, this.asks]] as const) {
      book.forEach((o, i) => {
        if (o.side !== side) throw new Error(`order ${o.id} on the wrong side`)
        if (!Number.isSafeInteger(o.price) || o.price <= 0) throw new Error(`order ${o.id} bad price`)
        if (!Number.isSafeInteger(o.remaining) || o.remaining <= 0) throw new Error(`order ${o.id} bad remaining`)
        if (ids.has(o.id)) throw new Error(`duplicate id ${o.id}`)
        ids.add(o.id)
        const prev = book[i - 1]
        if (prev === undefined) return
        const ordered = prev.price === o.price ? prev.seq < o.seq : side === BUY ? prev.price > o.price : prev.price < o.price
        if (!ordered) throw new Error(`order ${o.id} out of priority order`)
      })
    }
    const bid = this.bestBid()
    const ask = this.bestAsk()
    if (bid !== undefined && ask !== undefined && bid >= ask) throw new Error('crossed book')
  }

  stateHash(): string {
    return hashBook(this.orders())
  }

  private opposite(side: Side): NaiveOrder[] {
    return side === BUY ? this.asks : this.bids
  }

  private find(id: string): NaiveOrder | undefined {
    return this.bids.find((o) => o.id === id) ?? this.asks.find((o) => o.id === id)
  }

  private touch(side: Side, price: number): void {
    if (!this.changes.some(([s, p]) => s === side && p === price)) this.changes.push([side, price])
  }
}

/** Whether a `side` taker with `limit` accepts a resting price. */
function acceptable(side: Side, price: number, limit: number): boolean {
  return side === BUY ? price <= limit : price >= limit
}
