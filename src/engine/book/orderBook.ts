// The production order book: price-time priority over integer ticks and lots. It owns the resting
// orders (records in an OrderStore, found by id through an OrderIndex; each sits in its price level's
// FIFO queue, linked through the store), one BookSide per side (the levels: a ladder around the touch,
// a tree beyond it, a best-first list of the non-empty ones), and the set of levels changed since the
// last drain. Pure data structure: no clock, no randomness, no I/O. Resting, matching, cancelling and
// draining allocate nothing but a level the first time its price is used in the window, or each time
// outside it, and a smaller store once a burst of orders has gone; orders are handed out as copies or,
// to a match sink, as a reused view.
import { Level } from './bookNodes.js'
import { BookSide, DEFAULT_WINDOW } from './bookSide.js'
import { hashBook } from './hashBook.js'
import { fail } from './invariant.js'
import { hashId, OrderIndex } from './orderIndex.js'
import { NONE, OrderStore } from './orderStore.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side, type Taker } from './types.js'

export interface OrderBookOptions {
  /** Ladder width per side in ticks, a multiple of 32 (tests use small ones to cross the edges). */
  window?: number
}

/** Below this many handles a sparse store is not worth compacting (a few hundred KiB at most). */
const COMPACT_MIN_HANDLES = 4096

export class OrderBook implements Book {
  private store = new OrderStore()
  private byId = new OrderIndex(this.store.ids)
  /** What match() hands its sink: one object rewritten for each maker, valid during the call only. */
  private readonly maker = { id: '', owner: '', side: BUY as Side, price: 0, remaining: 0, seq: 0 }
  private readonly bids: BookSide
  private readonly asks: BookSide
  /** Levels changed since the last drain, in first-touched order: the first `changedCount` entries
   * (a count rather than `length = 0`, which is a slow runtime call in V8). */
  private readonly changed: Level[] = []
  private changedCount = 0
  private epoch = 1
  /** While a sweep holds handles: its sink may cancel or reduce other orders, but not move them. */
  private sweeping = false

  constructor(options: OrderBookOptions = {}) {
    const window = options.window ?? DEFAULT_WINDOW
    this.bids = new BookSide(BUY, window)
    this.asks = new BookSide(SELL, window)
  }

  get size(): number {
    return this.store.size
  }

  /** Order records kept, live or free: what the book once held at the same time, until it compacts. */
  get handles(): number {
    return this.store.handles
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
    const store = this.store
    for (let level = (buying ? this.asks : this.bids).best; level !== null; level = level.worse) {
      if (buying ? level.price > limit : level.price < limit) break
      for (let h = level.head; h !== NONE; h = store.next(h)) {
        if (store.owners[h] === owner) continue
        found += store.remaining(h)
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
    // No try/finally (it measured 10% slower on the book bench): a sink that throws leaves compaction
    // off until the next sweep ends, which costs memory for a while, never correctness.
    this.sweeping = true
    let lots = taker.lots
    const buying = taker.side === BUY
    const side = buying ? this.asks : this.bids
    const limit = taker.limit
    const owner = taker.owner
    const store = this.store
    // Always work on the head of the best level; the book is consistent whenever the sink is called.
    while (lots > 0) {
      const level = side.best
      if (level === null || (buying ? level.price > limit : level.price < limit)) break
      this.touch(level)
      const h = level.head
      if (store.owners[h] === owner) {
        const maker = this.view(h, level)
        this.remove(side, level, h)
        sink.onSelfTradeCancel(maker)
        continue
      }
      const available = store.remaining(h)
      if (available > lots) {
        store.setRemaining(h, available - lots)
        level.total -= lots
        sink.onFill(this.view(h, level), lots)
        lots = 0
        break
      }
      store.setRemaining(h, 0)
      level.total -= available
      lots -= available
      const maker = this.view(h, level)
      this.remove(side, level, h)
      sink.onFill(maker, available)
    }
    this.sweeping = false
    this.compactIfSparse()
    return lots
  }

  /** The sink's view of order `h`, rewritten in place. */
  private view(h: number, level: Level): BookOrder {
    return this.read(h, level, this.maker)
  }

  /** A detached copy of order `h`, for callers that may keep it. */
  private copy(h: number, level: Level): BookOrder {
    return this.read(h, level, { id: '', owner: '', side: BUY, price: 0, remaining: 0, seq: 0 })
  }

  /** Writes order `h` (resting at `level`) into `into`. */
  private read(h: number, level: Level, into: { -readonly [K in keyof BookOrder]: BookOrder[K] }): BookOrder {
    const store = this.store
    into.id = store.ids[h] as string
    into.owner = store.owners[h] as string
    into.side = level.side
    into.price = level.price
    into.remaining = store.remaining(h)
    into.seq = store.seq(h)
    return into
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
    const hash = hashId(id)
    if (this.byId.has(id, hash)) throw new Error(`order ${id} is already in the book`)
    const bookSide = side === BUY ? this.bids : this.asks
    const level = bookSide.levelAt(price, this.epoch)
    const store = this.store
    const tail = level.tail
    if (tail !== NONE && seq <= store.seq(tail)) {
      throw new Error(`order ${id}: seq ${seq} does not follow the level's last seq ${store.seq(tail)}`)
    }
    const h = store.alloc(id, owner, hash, level, remaining, seq, tail)
    this.byId.add(hash, h)
    if (level.count === 0) bookSide.link(level)
    if (tail === NONE) level.head = h
    else store.setNext(tail, h)
    level.tail = h
    level.total += remaining
    level.count++
    this.touch(level)
  }

  cancel(id: string): boolean {
    const h = this.byId.take(id, hashId(id))
    if (h === NONE) return false
    const level = this.store.levels[h] as Level
    this.touch(level)
    this.dequeue(level.side === BUY ? this.bids : this.asks, level, h)
    this.compactIfSparse()
    return true
  }

  /** Sets the order's remaining TO `lots` (0 < lots < remaining), keeping its place in the queue. */
  reduce(id: string, lots: number): void {
    const h = this.byId.get(id, hashId(id))
    if (h === NONE) throw new Error(`order ${id} is not in the book`)
    const store = this.store
    const remaining = store.remaining(h)
    if (!Number.isSafeInteger(lots) || lots <= 0 || lots >= remaining) {
      throw new RangeError(`order ${id}: cannot reduce ${remaining} lots to ${lots}`)
    }
    const level = store.levels[h] as Level
    level.total -= remaining - lots
    store.setRemaining(h, lots)
    this.touch(level)
  }

  get(id: string): BookOrder | undefined {
    const h = this.byId.get(id, hashId(id))
    return h === NONE ? undefined : this.copy(h, this.store.levels[h] as Level)
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
        for (let h = level.head; h !== NONE; h = this.store.next(h)) yield this.copy(h, level)
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
    const store = this.store
    store.validate()
    this.byId.validate((h) => store.hash(h))
    const orders = this.validateSide(this.bids) + this.validateSide(this.asks)
    if (orders !== this.byId.size || orders !== store.size) fail(`${this.byId.size} orders by id, ${store.size} stored, but ${orders} in the levels`)
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

  /**
   * After a burst, once under a quarter of the store's handles are live, moves the orders into a store
   * and an index sized for them, queue by queue, so that memory follows the book down. Amortised O(1):
   * three quarters of the handles were freed since the store last had this many. Called only between
   * operations, never while a sweep holds handles; handles never leave the book.
   */
  private compactIfSparse(): void {
    const old = this.store
    if (this.sweeping || old.handles < COMPACT_MIN_HANDLES || 4 * old.size >= old.handles) return
    const store = new OrderStore(2 * old.size)
    const byId = new OrderIndex(store.ids)
    for (const side of [this.bids, this.asks]) {
      for (let level = side.best; level !== null; level = level.worse) {
        let prev = NONE
        for (let h = level.head; h !== NONE; h = old.next(h)) {
          const moved = store.alloc(old.ids[h] as string, old.owners[h] as string, old.hash(h), level, old.remaining(h), old.seq(h), prev)
          byId.add(old.hash(h), moved)
          if (prev === NONE) level.head = moved
          else store.setNext(prev, moved)
          prev = moved
        }
        level.tail = prev
      }
    }
    this.store = store
    this.byId = byId
  }

  /** Takes order `h` out of the id index, then dequeue()s it. */
  private remove(side: BookSide, level: Level, h: number): void {
    this.byId.remove(this.store.hash(h), h)
    this.dequeue(side, level, h)
  }

  /** Unlinks order `h` from its level's queue, and the level once empty, and frees its record; the
   * caller has already taken it out of the id index and settled `remaining`. */
  private dequeue(side: BookSide, level: Level, h: number): void {
    const store = this.store
    const prev = store.prev(h)
    const next = store.next(h)
    if (prev === NONE) level.head = next
    else store.setNext(prev, next)
    if (next === NONE) level.tail = prev
    else store.setPrev(next, prev)
    level.total -= store.remaining(h)
    level.count--
    store.release(h)
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
      if (level.count <= 0 || level.head === NONE) fail(`${at}: empty level in the list`)
      const store = this.store
      let total = 0
      let count = 0
      let prev = NONE
      for (let h = level.head; h !== NONE; h = store.next(h)) {
        const id = store.ids[h] as string
        const of = `${at}: order ${id}`
        if (++count > store.size) fail(`${at}: order list is cyclic`)
        if (store.prev(h) !== prev) fail(`${of}: broken order links`)
        if (store.levels[h] !== level) fail(`${of}: wrong level`)
        const remaining = store.remaining(h)
        if (!Number.isSafeInteger(remaining) || remaining <= 0) fail(`${of}: remaining ${remaining}`)
        if (!Number.isSafeInteger(store.seq(h))) fail(`${of}: seq ${store.seq(h)}`)
        if (prev !== NONE && store.seq(h) <= store.seq(prev)) fail(`${of}: seq ${store.seq(h)} not after ${store.seq(prev)}`)
        if (store.hash(h) !== hashId(id) || this.byId.get(id, store.hash(h)) !== h) fail(`${of}: id index disagrees`)
        total += remaining
        prev = h
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
