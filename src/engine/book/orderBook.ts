// The production order book: price-time priority over integer ticks and lots. It owns the resting
// orders (an OrderIndex by id; each order sits in its price level's intrusive FIFO queue), one BookSide
// per side (the levels: a ladder around the touch, a tree beyond it, a best-first list of the non-empty
// ones), and the set of levels changed since the last drain. Pure data structure: no clock, no
// randomness, no I/O. The hot path allocates only the order it rests (drainLevels() allocates
// nothing), plus a level the first time its price is used in the window, or each time outside it.
import { Level, Order } from './bookNodes.js'
import { BookSide, DEFAULT_WINDOW } from './bookSide.js'
import { hashBook } from './hashBook.js'
import { fail } from './invariant.js'
import { hashId, OrderIndex } from './orderIndex.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side, type Taker } from './types.js'

export interface OrderBookOptions {
  /** Ladder width per side in ticks, a multiple of 32 (tests use small ones to cross the edges). */
  window?: number
}

export class OrderBook implements Book {
  private readonly byId = new OrderIndex<Order>()
  private readonly bids: BookSide
  private readonly asks: BookSide
  /** Levels changed since the last drain, in first-touched order: the first `changedCount` entries
   * (a count rather than `length = 0`, which is a slow runtime call in V8). */
  private readonly changed: Level[] = []
  private changedCount = 0
  private epoch = 1

  constructor(options: OrderBookOptions = {}) {
    const window = options.window ?? DEFAULT_WINDOW
    this.bids = new BookSide(BUY, window)
    this.asks = new BookSide(SELL, window)
  }

  get size(): number {
    return this.byId.size
  }

  bestBid(): number | undefined {
    const level = this.bids.best
    return level === null ? undefined : level.price
  }

  bestAsk(): number | undefined {
    const level = this.asks.best
    return level === null ? undefined : level.price
  }

  wouldCross(side: Side, price: number): boolean {
    if (side === BUY) {
      const ask = this.asks.best
      return ask !== null && price >= ask.price
    }
    const bid = this.bids.best
    return bid !== null && price <= bid.price
  }

  fillableLots(side: Side, limit: number, owner: string, wanted: number): number {
    if (!(wanted > 0)) return 0
    const buying = side === BUY
    let found = 0
    for (let level = (buying ? this.asks : this.bids).best; level !== null; level = level.worse) {
      if (buying ? level.price > limit : level.price < limit) break
      for (let order = level.head; order !== null; order = order.next) {
        if (order.owner === owner) continue
        found += order.remaining
        if (found >= wanted) return wanted
      }
    }
    return found
  }

  match(taker: Taker, sink: MatchSink): number {
    const lots = taker.lots
    if (!Number.isSafeInteger(lots) || lots <= 0) throw new RangeError(`taker lots must be a positive safe integer, got ${lots}`)
    // Most limits do not cross: that answer stays small enough to inline into callers; the sweep does not.
    const buying = taker.side === BUY
    const best = (buying ? this.asks : this.bids).best
    if (best === null || (buying ? best.price > taker.limit : best.price < taker.limit)) return lots
    return this.sweep(taker, sink)
  }

  /** match() once the taker crosses the best level. */
  private sweep(taker: Taker, sink: MatchSink): number {
    let lots = taker.lots
    const buying = taker.side === BUY
    const side = buying ? this.asks : this.bids
    const limit = taker.limit
    const owner = taker.owner
    // Always work on the head of the best level; the book is consistent whenever the sink is called.
    while (lots > 0) {
      const level = side.best
      if (level === null || (buying ? level.price > limit : level.price < limit)) break
      this.touch(level)
      const maker = level.head as Order
      if (maker.owner === owner) {
        this.byId.remove(maker)
        this.dequeue(side, maker)
        sink.onSelfTradeCancel(maker)
        continue
      }
      const available = maker.remaining
      if (available > lots) {
        maker.remaining = available - lots
        level.total -= lots
        sink.onFill(maker, lots)
        return 0
      }
      maker.remaining = 0
      level.total -= available
      lots -= available
      this.byId.remove(maker)
      this.dequeue(side, maker)
      sink.onFill(maker, available)
    }
    return lots
  }

  add(order: { id: string; owner: string; side: Side; price: number; remaining: number; seq: number }): void {
    const { id, owner, side, price, remaining, seq } = order
    if (side !== BUY && side !== SELL) throw new RangeError(`order ${id}: bad side ${side}`)
    if (!Number.isSafeInteger(price) || price <= 0) throw new RangeError(`order ${id}: price must be a positive safe integer, got ${price}`)
    if (!Number.isSafeInteger(remaining) || remaining <= 0) {
      throw new RangeError(`order ${id}: remaining must be a positive safe integer, got ${remaining}`)
    }
    if (!Number.isSafeInteger(seq)) throw new RangeError(`order ${id}: seq must be a safe integer, got ${seq}`)
    if (this.wouldCross(side, price)) throw new Error(`order ${id} at ${price} would cross the book`)
    const bookSide = side === BUY ? this.bids : this.asks
    const level = bookSide.levelAt(price, this.epoch)
    const tail = level.tail
    if (tail !== null && seq <= tail.seq) {
      throw new Error(`order ${id}: seq ${seq} does not follow the level's last seq ${tail.seq}`)
    }
    const resting = new Order(id, owner, remaining, seq, hashId(id), level)
    if (!this.byId.add(resting)) throw new Error(`order ${id} is already in the book`)
    if (level.count === 0) bookSide.link(level)
    if (tail === null) level.head = resting
    else {
      tail.next = resting
      resting.prev = tail
    }
    level.tail = resting
    level.total += remaining
    level.count++
    this.touch(level)
  }

  cancel(id: string): BookOrder | undefined {
    const order = this.byId.take(id)
    if (order === undefined) return undefined
    this.touch(order.level)
    this.dequeue(order.side === BUY ? this.bids : this.asks, order)
    return order
  }

  /** Sets the order's remaining TO `lots` (0 < lots < remaining), keeping its place in the queue. */
  reduce(id: string, lots: number): void {
    const order = this.byId.get(id)
    if (order === undefined) throw new Error(`order ${id} is not in the book`)
    if (!Number.isSafeInteger(lots) || lots <= 0 || lots >= order.remaining) {
      throw new RangeError(`order ${id}: cannot reduce ${order.remaining} lots to ${lots}`)
    }
    order.level.total -= order.remaining - lots
    order.remaining = lots
    this.touch(order.level)
  }

  get(id: string): BookOrder | undefined {
    return this.byId.get(id)
  }

  levelSize(side: Side, price: number): number {
    return (side === BUY ? this.bids : this.asks).sizeAt(price)
  }

  depth(side: Side, maxLevels = Number.POSITIVE_INFINITY): Array<[number, number]> {
    const out: Array<[number, number]> = []
    for (let level = (side === BUY ? this.bids : this.asks).best; level !== null && out.length < maxLevels; level = level.worse) {
      out.push([level.price, level.total])
    }
    return out
  }

  *orders(): Iterable<BookOrder> {
    for (const side of [this.bids, this.asks]) {
      for (let level = side.best; level !== null; level = level.worse) {
        for (let order = level.head; order !== null; order = order.next) yield order
      }
    }
  }

  drainChanges(): Array<[Side, number]> {
    const levels: number[] = []
    const n = this.drainLevels(levels)
    const out = new Array<[Side, number]>(n)
    for (let i = 0; i < n; i++) out[i] = [levels[3 * i] as Side, levels[3 * i + 1] as number]
    return out
  }

  drainLevels(out: number[]): number {
    const changed = this.changed
    const n = this.changedCount
    for (let i = 0; i < n; i++) {
      const level = changed[i] as Level
      out[3 * i] = level.side
      out[3 * i + 1] = level.price
      out[3 * i + 2] = level.total
      if (level.count === 0) (level.side === BUY ? this.bids : this.asks).retire(level)
    }
    this.changedCount = 0
    this.epoch++
    return n
  }

  validateInternalState(): void {
    this.byId.validate()
    const orders = this.validateSide(this.bids) + this.validateSide(this.asks)
    if (orders !== this.byId.size) fail(`${this.byId.size} orders by id but ${orders} in the levels`)
    const bid = this.bids.best
    const ask = this.asks.best
    if (bid !== null && ask !== null && bid.price >= ask.price) fail(`crossed book: bid ${bid.price} >= ask ${ask.price}`)
    const seen = new Set<Level>()
    for (const level of this.changed.slice(0, this.changedCount)) {
      if (level.touched !== this.epoch || seen.has(level)) fail(`change list entry ${level.side}/${level.price} is stale or repeated`)
      seen.add(level)
    }
  }

  stateHash(): string {
    return hashBook(this.orders())
  }

  private touch(level: Level): void {
    if (level.touched !== this.epoch) {
      level.touched = this.epoch
      this.changed[this.changedCount++] = level
    }
  }

  /** Unlinks an order from its level's queue, and the level once empty; the caller has already taken
   * it out of the id index and settled `remaining`. */
  private dequeue(side: BookSide, order: Order): void {
    const level = order.level
    const prev = order.prev
    const next = order.next
    if (prev === null) level.head = next
    else prev.next = next
    if (next === null) level.tail = prev
    else next.prev = prev
    order.prev = null
    order.next = null
    level.total -= order.remaining
    level.count--
    if (level.count === 0) side.unlink(level)
  }

  /** Checks one side and returns how many orders it holds. */
  private validateSide(side: BookSide): number {
    const name = side.isBid ? 'bid' : 'ask'
    let orders = 0
    const listed: Level[] = []
    let prevLevel: Level | null = null
    for (let level = side.best; level !== null; level = level.worse) {
      const at = `${name} level ${level.price}`
      if (listed.length > this.byId.size) fail(`${name} level list is cyclic`)
      listed.push(level)
      if (level.better !== prevLevel) fail(`${at}: broken level links`)
      if (prevLevel !== null && (side.isBid ? level.price >= prevLevel.price : level.price <= prevLevel.price)) {
        fail(`${at}: levels not sorted best-first`)
      }
      if (level.side !== side.side) fail(`${at}: level has side ${level.side}`)
      if (level.count <= 0 || level.head === null) fail(`${at}: empty level in the list`)
      let total = 0
      let count = 0
      let prev: Order | null = null
      for (let order: Order | null = level.head; order !== null; order = order.next) {
        const of = `${at}: order ${order.id}`
        if (++count > this.byId.size) fail(`${at}: order list is cyclic`)
        if (order.prev !== prev) fail(`${of}: broken order links`)
        if (order.level !== level) fail(`${of}: wrong level`)
        if (!Number.isSafeInteger(order.remaining) || order.remaining <= 0) fail(`${of}: remaining ${order.remaining}`)
        if (prev !== null && order.seq <= prev.seq) fail(`${of}: seq ${order.seq} not after ${prev.seq}`)
        if (order.hash !== hashId(order.id) || this.byId.get(order.id) !== order) fail(`${of}: id index disagrees`)
        total += order.remaining
        prev = order
      }
      if (level.tail !== prev) fail(`${at}: tail is not the last order`)
      if (count !== level.count) fail(`${at}: count ${level.count} but ${count} orders`)
      if (total !== level.total) fail(`${at}: total ${level.total} but orders sum to ${total}`)
      orders += count
      prevLevel = level
    }
    if (side.worst !== prevLevel) fail(`${name} worst level is not the list's last`)
    side.validate(listed, (level) => level.touched === this.epoch)
    return orders
  }
}
