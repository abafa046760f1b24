// The Book contract, run against both the production OrderBook and the naive reference book, with the
// internal state validated after every step.
import { describe, expect, it } from 'vitest'
import { OrderBook } from '../../src/engine/book/orderBook.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side } from '../../src/engine/book/types.js'
import { NONE, type OrderStore } from '../../src/engine/book/orderStore.js'
import { NaiveBook } from '../support/naiveBook.js'
import { mulberry32 } from '../../src/domain/prng.js'

type Event = ['fill', string, number, number, number] | ['stp', string]

/** Records match() effects as [kind, maker id, lots, maker price, maker remaining after]. */
class Recorder implements MatchSink {
  readonly events: Event[] = []
  onFill(maker: BookOrder, lots: number): void {
    this.events.push(['fill', maker.id, lots, maker.price, maker.remaining])
  }
  onSelfTradeCancel(maker: BookOrder): void {
    this.events.push(['stp', maker.id])
  }
}

/** A book plus helpers that validate the internal state after every call. */
function harness(make: () => Book) {
  const book = make()
  let seq = 0
  const checked = <T>(value: T): T => {
    book.validateInternalState()
    return value
  }
  return {
    book,
    rest(id: string, owner: string, side: Side, price: number, lots: number, at = ++seq): void {
      seq = Math.max(seq, at)
      checked(book.add({ id, owner, side, price, remaining: lots, seq: at }))
    },
    take(owner: string, side: Side, limit: number, lots: number): { left: number; events: Event[] } {
      const sink = new Recorder()
      const left = book.match({ owner, side, limit, lots }, sink)
      return checked({ left, events: sink.events })
    },
    cancel: (id: string) => checked(book.cancel(id)),
    reduce: (id: string, lots: number) => checked(book.reduce(id, lots)),
    ids: () => [...book.orders()].map((o) => o.id),
  }
}

describe.each([
  ['OrderBook', () => new OrderBook()],
  ['NaiveBook', () => new NaiveBook()],
] as Array<[string, () => Book]>)('%s', (_name, make) => {
  it('rests, finds, reduces and cancels orders', () => {
    const h = harness(make)
    expect(h.book.size).toBe(0)
    expect(h.book.bestBid()).toBeUndefined()
    expect(h.book.bestAsk()).toBeUndefined()
    h.rest('b1', 'alice', BUY, 99, 5)
    h.rest('a1', 'bob', SELL, 101, 7)
    expect(h.book.size).toBe(2)
    expect(h.book.bestBid()).toBe(99)
    expect(h.book.bestAsk()).toBe(101)
    expect(h.book.get('b1')).toMatchObject({ id: 'b1', owner: 'alice', side: BUY, price: 99, remaining: 5, seq: 1 })
    expect(h.book.levelSize(BUY, 99)).toBe(5)
    expect(h.book.levelSize(SELL, 99)).toBe(0)

    h.reduce('a1', 3)
    expect(h.book.get('a1')?.remaining).toBe(3)
    expect(h.book.levelSize(SELL, 101)).toBe(3)

    expect(h.cancel('b1')).toBe(true)
    expect(h.book.get('b1')).toBeUndefined()
    expect(h.book.size).toBe(1)
    expect(h.book.bestBid()).toBeUndefined()
    expect(h.book.levelSize(BUY, 99)).toBe(0)
  })

  it('returns undefined when cancelling an unknown or already removed id, without recording a change', () => {
    const h = harness(make)
    h.rest('a1', 'bob', SELL, 101, 1)
    h.book.drainChanges()
    expect(h.cancel('nope')).toBe(false)
    expect(h.cancel('a1')).toBe(true)
    expect(h.book.drainChanges()).toEqual([[SELL, 101]])
    expect(h.cancel('a1')).toBe(false)
    expect(h.book.drainChanges()).toEqual([])
  })

  it('fills in price priority across levels and time priority within a level, at the resting prices', () => {
    const h = harness(make)
    h.rest('a102', 'm1', SELL, 102, 1)
    h.rest('a100-old', 'm2', SELL, 100, 1)
    h.rest('a101', 'm3', SELL, 101, 1)
    h.rest('a100-new', 'm4', SELL, 100, 1)
    const { left, events } = h.take('t', BUY, 102, 4)
    expect(left).toBe(0)
    expect(events).toEqual([
      ['fill', 'a100-old', 1, 100, 0],
      ['fill', 'a100-new', 1, 100, 0],
      ['fill', 'a101', 1, 101, 0],
      ['fill', 'a102', 1, 102, 0],
    ])
    expect(h.book.size).toBe(0)

    h.rest('b98', 'm1', BUY, 98, 1)
    h.rest('b99-old', 'm2', BUY, 99, 1)
    h.rest('b99-new', 'm3', BUY, 99, 1)
    expect(h.take('t', SELL, 1, 3).events.map((e) => e[1])).toEqual(['b99-old', 'b99-new', 'b98'])
  })

  it('partially fills a maker, which keeps its place at the head of the queue', () => {
    const h = harness(make)
    h.rest('a1', 'm1', SELL, 100, 10)
    h.rest('a2', 'm2', SELL, 100, 10)
    expect(h.take('t', BUY, 100, 4)).toEqual({ left: 0, events: [['fill', 'a1', 4, 100, 6]] })
    expect(h.book.get('a1')?.remaining).toBe(6)
    expect(h.book.levelSize(SELL, 100)).toBe(16)
    expect(h.take('t', BUY, 100, 8).events).toEqual([
      ['fill', 'a1', 6, 100, 0],
      ['fill', 'a2', 2, 100, 8],
    ])
    expect(h.ids()).toEqual(['a2'])
  })

  it('sweeps several levels and reports the lots it could not fill', () => {
    const h = harness(make)
    h.rest('a1', 'm', SELL, 100, 2)
    h.rest('a2', 'm', SELL, 101, 3)
    h.rest('a3', 'm', SELL, 103, 4)
    const { left, events } = h.take('t', BUY, 1_000, 20)
    expect(left).toBe(11)
    expect(events.map((e) => [e[1], e[2]])).toEqual([['a1', 2], ['a2', 3], ['a3', 4]])
    expect(h.book.bestAsk()).toBeUndefined()
    expect(h.book.size).toBe(0)
  })

  it('stops at the limit price and leaves worse levels untouched', () => {
    const h = harness(make)
    h.rest('a1', 'm', SELL, 100, 2)
    h.rest('a2', 'm', SELL, 101, 3)
    h.rest('a3', 'm', SELL, 102, 4)
    h.book.drainChanges()
    expect(h.take('t', BUY, 101, 10)).toMatchObject({ left: 5 })
    expect(h.book.bestAsk()).toBe(102)
    expect(h.book.drainChanges()).toEqual([[SELL, 100], [SELL, 101]])
    h.rest('b1', 'm', BUY, 90, 2)
    expect(h.take('t', SELL, 91, 1)).toEqual({ left: 1, events: [] })
    expect(h.book.get('b1')?.remaining).toBe(2)
  })

  it('cancels the taker owner\'s resting orders met mid-sweep (oldest) and keeps matching beyond them', () => {
    const h = harness(make)
    h.rest('x', 'other', SELL, 100, 5)
    h.rest('own1', 'me', SELL, 100, 5)
    h.rest('y', 'other', SELL, 100, 1)
    h.rest('own2', 'me', SELL, 101, 3)
    h.rest('z', 'other', SELL, 102, 5)
    h.rest('own3', 'me', SELL, 103, 9)
    const { left, events } = h.take('me', BUY, 103, 8)
    expect(left).toBe(0)
    expect(events).toEqual([
      ['fill', 'x', 5, 100, 0],
      ['stp', 'own1'],
      ['fill', 'y', 1, 100, 0],
      ['stp', 'own2'],
      ['fill', 'z', 2, 102, 3],
    ])
    // own3 was never reached: it still rests.
    expect(h.ids()).toEqual(['z', 'own3'])
    expect(h.book.get('own1')).toBeUndefined()
  })

  it('cancels own orders within the limit even when nothing else trades', () => {
    const h = harness(make)
    h.rest('own', 'me', SELL, 100, 5)
    h.rest('far', 'other', SELL, 105, 5)
    expect(h.take('me', BUY, 101, 3)).toEqual({ left: 3, events: [['stp', 'own']] })
    expect(h.book.bestAsk()).toBe(105)
  })

  it('counts fillable lots within the limit from other owners only, stopping at the wanted amount', () => {
    const h = harness(make)
    h.rest('a1', 'other', SELL, 100, 4)
    h.rest('mine', 'me', SELL, 100, 50)
    h.rest('a2', 'other', SELL, 101, 6)
    h.rest('a3', 'other', SELL, 103, 100)
    expect(h.book.fillableLots(BUY, 101, 'me', 1_000)).toBe(10)
    expect(h.book.fillableLots(BUY, 101, 'other', 1_000)).toBe(50)
    expect(h.book.fillableLots(BUY, 99, 'me', 1_000)).toBe(0)
    expect(h.book.fillableLots(BUY, 1_000, 'me', 7)).toBe(7)
    expect(h.book.fillableLots(BUY, 1_000, 'me', 110)).toBe(110)
    expect(h.book.fillableLots(BUY, 1_000, 'me', 111)).toBe(110)
    expect(h.book.fillableLots(SELL, 1, 'me', 5)).toBe(0)
    h.rest('b1', 'other', BUY, 90, 3)
    expect(h.book.fillableLots(SELL, 90, 'me', 5)).toBe(3)
    expect(h.book.fillableLots(SELL, 91, 'me', 5)).toBe(0)
  })

  it('tells whether a price would cross', () => {
    const h = harness(make)
    expect(h.book.wouldCross(BUY, 1_000_000)).toBe(false)
    h.rest('b', 'm', BUY, 99, 1)
    h.rest('a', 'm', SELL, 101, 1)
    expect(h.book.wouldCross(BUY, 100)).toBe(false)
    expect(h.book.wouldCross(BUY, 101)).toBe(true)
    expect(h.book.wouldCross(SELL, 100)).toBe(false)
    expect(h.book.wouldCross(SELL, 99)).toBe(true)
  })

  it('moves best bid and ask to the next level when the best level empties', () => {
    const h = harness(make)
    h.rest('b1', 'm', BUY, 99, 1)
    h.rest('b2', 'm', BUY, 97, 1)
    h.rest('b3', 'm', BUY, 98, 1)
    h.rest('a1', 'm', SELL, 101, 1)
    h.rest('a2', 'm', SELL, 103, 1)
    h.rest('a3', 'm', SELL, 102, 1)
    h.cancel('b1')
    expect(h.book.bestBid()).toBe(98)
    h.take('t', SELL, 98, 1)
    expect(h.book.bestBid()).toBe(97)
    h.take('t', BUY, 101, 1)
    expect(h.book.bestAsk()).toBe(102)
    h.cancel('a3')
    expect(h.book.bestAsk()).toBe(103)
    h.cancel('a2')
    expect(h.book.bestAsk()).toBeUndefined()
    h.rest('a4', 'm', SELL, 98, 1)
    expect(h.book.bestAsk()).toBe(98)
  })

  it('keeps many levels in price order whatever order they open and close in', () => {
    const h = harness(make)
    const rand = mulberry32(99)
    const shuffled = (n: number) => {
      const items = Array.from({ length: n }, (_, i) => i)
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1))
        ;[items[i], items[j]] = [items[j] as number, items[i] as number]
      }
      return items
    }
    const ascending = Array.from({ length: 60 }, (_, i) => i)
    for (const order of [ascending, [...ascending].reverse(), shuffled(60)]) {
      for (const i of order) {
        h.rest(`b${i}`, 'm', BUY, 1_000 - i, 1)
        h.rest(`a${i}`, 'm', SELL, 1_001 + i, 1)
      }
      expect(h.book.depth(BUY).map(([price]) => price)).toEqual(ascending.map((i) => 1_000 - i))
      expect(h.book.depth(SELL).map(([price]) => price)).toEqual(ascending.map((i) => 1_001 + i))
      for (const i of shuffled(60)) {
        h.cancel(`b${i}`)
        h.cancel(`a${i}`)
      }
      expect(h.book.size).toBe(0)
      h.book.drainChanges()
    }
  })

  it('aggregates depth per level best-first, up to maxLevels', () => {
    const h = harness(make)
    h.rest('b1', 'm', BUY, 99, 1)
    h.rest('b2', 'n', BUY, 99, 2)
    h.rest('b3', 'm', BUY, 97, 4)
    h.rest('b4', 'm', BUY, 98, 8)
    h.rest('a1', 'm', SELL, 102, 3)
    h.rest('a2', 'm', SELL, 101, 5)
    expect(h.book.depth(BUY)).toEqual([[99, 3], [98, 8], [97, 4]])
    expect(h.book.depth(BUY, 2)).toEqual([[99, 3], [98, 8]])
    expect(h.book.depth(BUY, 0)).toEqual([])
    expect(h.book.depth(SELL)).toEqual([[101, 5], [102, 3]])
    expect(h.book.depth(SELL, 10)).toEqual([[101, 5], [102, 3]])
  })

  it('lists orders bids best-first, then asks best-first, in time priority', () => {
    const h = harness(make)
    h.rest('a2', 'm', SELL, 102, 1)
    h.rest('b1', 'm', BUY, 98, 1)
    h.rest('a1', 'm', SELL, 101, 1)
    h.rest('b2', 'm', BUY, 99, 1)
    h.rest('b3', 'm', BUY, 98, 1)
    expect(h.ids()).toEqual(['b2', 'b1', 'b3', 'a1', 'a2'])
  })

  it('drains each changed level once, in first-touched order, then starts afresh', () => {
    const h = harness(make)
    expect(h.book.drainChanges()).toEqual([])
    h.rest('b1', 'm', BUY, 99, 1)
    h.rest('a1', 'm', SELL, 102, 3)
    h.rest('a2', 'm', SELL, 101, 1)
    h.rest('b2', 'm', BUY, 99, 1)
    h.reduce('a1', 1)
    expect(h.book.drainChanges()).toEqual([[BUY, 99], [SELL, 102], [SELL, 101]])
    expect(h.book.drainChanges()).toEqual([])

    // A sweep records levels best-first; a level emptied and re-created within one drain appears once.
    h.rest('a3', 'm', SELL, 102, 5)
    h.book.drainChanges()
    h.take('t', BUY, 102, 2)
    h.rest('a4', 'm', SELL, 101, 1)
    h.cancel('b1')
    const changes = h.book.drainChanges()
    expect(changes).toEqual([[SELL, 101], [SELL, 102], [BUY, 99]])
    expect(changes.map(([side, price]) => h.book.levelSize(side, price))).toEqual([1, 5, 1])

    // Emptied levels report size 0.
    h.cancel('a4')
    expect(h.book.drainChanges()).toEqual([[SELL, 101]])
    expect(h.book.levelSize(SELL, 101)).toBe(0)
  })

  it('drains the changed levels with their sizes into a buffer, leaving the rest of it alone', () => {
    const h = harness(make)
    const out = [7, 7, 7, 7, 7, 7, 7, 7]
    expect(h.book.drainLevels(out)).toBe(0)
    h.rest('b1', 'm', BUY, 99, 1)
    h.rest('a1', 'm', SELL, 102, 3)
    h.rest('b2', 'm', BUY, 99, 2)
    expect(h.book.drainLevels(out)).toBe(2)
    expect(out).toEqual([BUY, 99, 3, SELL, 102, 3, 7, 7])
    expect(h.book.drainLevels(out)).toBe(0)
    h.take('t', BUY, 102, 3)
    h.cancel('b1')
    expect(h.book.drainLevels(out)).toBe(2)
    expect(out).toEqual([SELL, 102, 0, BUY, 99, 2, 7, 7])
    expect(h.book.drainChanges()).toEqual([])
  })

  it('reduces an order to a lower remaining in place, keeping its time priority', () => {
    const h = harness(make)
    h.rest('first', 'm1', SELL, 100, 10)
    h.rest('second', 'm2', SELL, 100, 10)
    h.reduce('first', 1)
    expect(h.book.get('first')?.remaining).toBe(1)
    expect(h.book.levelSize(SELL, 100)).toBe(11)
    expect(h.take('t', BUY, 100, 2).events).toEqual([
      ['fill', 'first', 1, 100, 0],
      ['fill', 'second', 1, 100, 9],
    ])
    for (const bad of [9, 10, 0, -1, 1.5]) expect(() => h.book.reduce('second', bad)).toThrow()
    expect(() => h.book.reduce('nope', 1)).toThrow()
    h.book.validateInternalState()
    h.reduce('second', 8)
    expect(h.book.get('second')?.remaining).toBe(8)
  })

  it('hashes equal content equally however it was built, and different content differently', () => {
    const direct = harness(make)
    direct.rest('b1', 'm', BUY, 99, 6, 1)
    direct.rest('a1', 'n', SELL, 101, 2, 3)

    const roundabout = harness(make)
    roundabout.rest('a0', 'x', SELL, 100, 9, 1)
    roundabout.rest('b1', 'm', BUY, 99, 10, 1)
    roundabout.rest('gone', 'x', SELL, 101, 1, 2)
    roundabout.rest('a1', 'n', SELL, 101, 2, 3)
    roundabout.cancel('gone')
    roundabout.cancel('a0')
    roundabout.take('t', SELL, 99, 4)
    expect(roundabout.book.stateHash()).toBe(direct.book.stateHash())
    expect(make().stateHash()).toBe(make().stateHash())

    const variants: Array<(h: ReturnType<typeof harness>) => void> = [
      (h) => h.rest('b1', 'm', BUY, 99, 5, 1),
      (h) => h.rest('b1', 'other', BUY, 99, 6, 1),
      (h) => h.rest('b1', 'm', BUY, 98, 6, 1),
      (h) => h.rest('b1', 'm', BUY, 99, 6, 2),
      (h) => h.rest('B1', 'm', BUY, 99, 6, 1),
    ]
    const hashes = new Set([direct.book.stateHash()])
    for (const variant of variants) {
      const h = harness(make)
      variant(h)
      h.rest('a1', 'n', SELL, 101, 2, 3)
      hashes.add(h.book.stateHash())
    }
    expect(hashes.size).toBe(variants.length + 1)
  })

  it('rejects orders that would break its invariants', () => {
    const h = harness(make)
    h.rest('b1', 'm', BUY, 99, 1, 5)
    h.rest('a1', 'm', SELL, 101, 1, 6)
    h.book.drainChanges()
    const order = { id: 'x', owner: 'm', side: BUY as Side, price: 98, remaining: 1, seq: 10 }
    expect(() => h.book.add({ ...order, id: 'b1' })).toThrow()
    expect(h.book.get('b1')).toMatchObject({ price: 99, seq: 5 })
    expect(() => h.book.add({ ...order, price: 101 })).toThrow()
    expect(() => h.book.add({ ...order, side: SELL, price: 99 })).toThrow()
    expect(() => h.book.add({ ...order, price: 0 })).toThrow()
    expect(() => h.book.add({ ...order, price: 98.5 })).toThrow()
    expect(() => h.book.add({ ...order, remaining: 0 })).toThrow()
    expect(() => h.book.add({ ...order, remaining: 2 ** 53 })).toThrow()
    expect(() => h.book.add({ ...order, price: 99, seq: 5 })).toThrow()
    // Time priority is checked against the level's current last order, which a cancel can change.
    h.rest('b2', 'm', BUY, 99, 1, 8)
    expect(() => h.book.add({ ...order, id: 'b3', price: 99, seq: 7 })).toThrow()
    h.cancel('b2')
    h.rest('b3', 'm', BUY, 99, 1, 7)
    h.cancel('b3')
    h.book.drainChanges()
    expect(() => h.book.add({ ...order, price: 99, seq: 5 })).toThrow()
    expect(() => h.book.match({ owner: 't', side: BUY, limit: 101, lots: 0 }, new Recorder())).toThrow()
    expect(() => h.book.match({ owner: 't', side: BUY, limit: 101, lots: 1.5 }, new Recorder())).toThrow()
    h.book.validateInternalState()
    expect(h.book.size).toBe(2)
    expect(h.book.levelSize(BUY, 98)).toBe(0)
    expect(h.book.drainChanges()).toEqual([])
  })

  it('hands out copies: an order read earlier does not change with the book', () => {
    const h = harness(make)
    h.rest('a1', 'm', SELL, 101, 3)
    const before = h.book.get('a1')
    h.take('t', BUY, 101, 1)
    expect(before?.remaining).toBe(3)
    expect(h.book.get('a1')?.remaining).toBe(2)
  })
})

describe('NaiveBook internals', () => {
  it('detects corrupted orders', () => {
    const zeroed = new NaiveBook()
    zeroed.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    zeroed.corrupt('a1', { remaining: 0 })
    expect(() => zeroed.validateInternalState()).toThrow()

    const reordered = new NaiveBook()
    reordered.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    reordered.add({ id: 'a2', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 2 })
    reordered.corrupt('a2', { seq: 0 })
    expect(() => reordered.validateInternalState()).toThrow()
  })
})

describe('OrderBook internals', () => {
  it('reports no size at any price before its ladder window is first placed', () => {
    const book = new OrderBook({ window: 32 })
    for (const price of [-3, -32, 0, 1, 1_000]) {
      expect(book.levelSize(BUY, price)).toBe(0)
      expect(book.levelSize(SELL, price)).toBe(0)
    }
  })

  /** The book's record store and the handle of order `id` in it, to corrupt a record directly. */
  const record = (book: OrderBook, id: string) => {
    const store = (book as unknown as { store: OrderStore }).store
    return { store, h: store.ids.indexOf(id) }
  }

  it('detects a level total that no longer matches its orders', () => {
    const book = new OrderBook()
    book.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    const { store, h } = record(book, 'a1')
    store.setRemaining(h, 4)
    expect(() => book.validateInternalState()).toThrow(/total 3 but orders sum to 4/)
    store.setRemaining(h, 0)
    expect(() => book.validateInternalState()).toThrow(/remaining 0/)
  })

  it('detects broken queue links and time priority', () => {
    const book = new OrderBook()
    book.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    book.add({ id: 'a2', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 2 })
    const { store, h } = record(book, 'a2')
    store.setPrev(h, NONE)
    expect(() => book.validateInternalState()).toThrow(/broken order links/)
    store.setPrev(h, record(book, 'a1').h)
    book.validateInternalState()
    // Swapping the queue's order puts seq 2 before seq 1.
    const a1 = record(book, 'a1').h
    const level = store.levels[h] as { head: number; tail: number }
    store.setNext(h, a1)
    store.setPrev(h, NONE)
    store.setNext(a1, NONE)
    store.setPrev(a1, h)
    level.head = h
    level.tail = a1
    expect(() => book.validateInternalState()).toThrow(/seq 1 not after 2/)
  })

  it('grows its record store past the initial capacity and reuses freed records', () => {
    const book = new OrderBook()
    const store = (book as unknown as { store: OrderStore }).store
    let seq = 0
    const rest = (n: number) => {
      for (let i = 0; i < n; i++) book.add({ id: `o${++seq}`, owner: 'm', side: i % 2 === 0 ? BUY : SELL, price: i % 2 === 0 ? 900 - (i % 50) : 1_100 + (i % 50), remaining: 1 + (i % 7), seq })
    }
    rest(1_000)
    book.validateInternalState()
    for (let id = 1; id <= 1_000; id += 2) expect(book.cancel(`o${id}`)).toBe(true)
    book.validateInternalState()
    rest(500)
    book.validateInternalState()
    // Every freed record was taken again before a new one: still 1,000 handles, all live.
    expect(store.ids.length).toBe(1_000)
    expect(store.size).toBe(1_000)
    expect(book.get('o2')).toMatchObject({ id: 'o2', side: SELL, price: 1_101, remaining: 2, seq: 2 })
    expect(book.get('o1500')).toMatchObject({ id: 'o1500', seq: 1_500 })
  })

  it('moves its orders into a smaller store once a burst has gone, by cancels or by fills, keeping their queues', () => {
    for (const drain of ['cancel', 'match'] as const) {
      const book = new OrderBook()
      const reference = new NaiveBook()
      // 6,000 orders over 40 price levels a side (ids interleaved, so queues mix old and new handles).
      for (let i = 1; i <= 6_000; i++) {
        const order = { id: `o${i}`, owner: `u${i % 3}`, side: i % 2 === 0 ? BUY : SELL, price: i % 2 === 0 ? 900 - (i % 40) : 1_100 + (i % 40), remaining: 1 + (i % 5), seq: i } as const
        book.add(order)
        reference.add(order)
      }
      expect(book.handles).toBe(6_000)
      let compactedAt = 0
      if (drain === 'cancel') {
        // Keep every sixth order: the store compacts once fewer than a quarter of its handles are live.
        for (let i = 1; i <= 6_000; i++) {
          if (i % 6 === 0) continue
          expect(book.cancel(`o${i}`)).toBe(reference.cancel(`o${i}`))
          if (compactedAt === 0 && book.handles < 6_000) compactedAt = book.size
        }
      } else {
        // Sweep most of both sides in slices, so the compaction follows a match.
        for (let k = 0; k < 20 && book.size > 1_000; k++) {
          for (const [side, limit] of [[BUY, 1_139], [SELL, 861]] as const) {
            const a = new Recorder()
            const b = new Recorder()
            expect(book.match({ owner: 'taker', side, limit, lots: 400 }, a)).toBe(reference.match({ owner: 'taker', side, limit, lots: 400 }, b))
            expect(a.events).toEqual(b.events)
            if (compactedAt === 0 && book.handles < 6_000) compactedAt = book.size
          }
        }
      }
      book.validateInternalState()
      expect(compactedAt, `${drain}: compacted below a quarter live`).toBeGreaterThan(0)
      expect(compactedAt * 4, drain).toBeLessThan(6_000)
      expect(book.handles, drain).toBeLessThan(2_000)
      // The same orders in the same queues, and matching still walks them in time priority.
      expect([...book.orders()], drain).toEqual([...reference.orders()])
      for (const [side, limit] of [[BUY, 2_000], [SELL, 1]] as const) {
        const a = new Recorder()
        const b = new Recorder()
        expect(book.match({ owner: 'taker', side, limit, lots: 50_000 }, a)).toBe(reference.match({ owner: 'taker', side, limit, lots: 50_000 }, b))
        expect(a.events, drain).toEqual(b.events)
      }
      book.validateInternalState()
      expect(book.size).toBe(0)
      // Compacted again on the way down, and reusable afterwards.
      expect(book.handles, drain).toBeLessThan(4_096)
      book.add({ id: 'again', owner: 'm', side: BUY, price: 950, remaining: 1, seq: 7_000 })
      expect(book.get('again')).toMatchObject({ price: 950, remaining: 1 })
      book.validateInternalState()
    }
  })

  it('detects a store whose live count disagrees with its handles', () => {
    const freed = new OrderBook()
    freed.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    const { store } = record(freed, 'a1')
    store.size--
    expect(() => freed.validateInternalState()).toThrow(/order store/)
  })

  it('keeps emptied levels in its ladder window and forgets those outside it at the drain', () => {
    const book = new OrderBook({ window: 32 })
    const bids = (book as unknown as { bids: { outside: Map<number, unknown>; slots: unknown[] } }).bids
    let seq = 0
    const cycle = (price: number) => {
      book.add({ id: `b${++seq}`, owner: 'm', side: BUY, price, remaining: 1, seq })
      book.cancel(`b${seq}`)
      book.validateInternalState()
      expect(book.drainChanges()).toEqual([[BUY, price]])
      book.validateInternalState()
    }
    for (let price = 1_000; price >= 1; price--) cycle(price)
    for (let price = 1; price <= 1_000; price++) cycle(price)
    for (let price = 1; price <= 100_000; price += 997) cycle(price)
    expect(bids.outside.size).toBe(0)
    expect(bids.slots.length).toBe(32)
    expect(book.size).toBe(0)
  })

  it('keeps one level per price when the window moves over an emptied level before the drain', () => {
    const fast = new OrderBook({ window: 32 })
    const naive = new NaiveBook()
    let seq = 0
    // As plain data: OrderBook hands out its internal nodes.
    const plain = (value: unknown): unknown => (value === undefined ? value : JSON.parse(JSON.stringify(value)))
    const both = (call: (book: Book) => unknown) => {
      const result = plain(call(fast))
      fast.validateInternalState()
      expect(plain(call(naive))).toEqual(result)
    }
    const rest = (id: string, price: number) => {
      const order = { id, owner: 'm', side: BUY as Side, price, remaining: 1, seq: ++seq }
      both((b) => b.add(order))
    }
    rest('top', 1_000)
    // Far below the window: the fallback tree.
    rest('deep', 900)
    // Enough opens inside the window that it may move again.
    for (let price = 990; price < 998; price++) {
      rest(`w${price}`, price)
      both((b) => b.cancel(`w${price}`))
    }
    both((b) => b.drainChanges())
    both((b) => b.cancel('deep'))
    both((b) => b.cancel('top'))
    // The side is empty, so this re-places the window around 900, where the emptied level still waits
    // for the drain.
    rest('again', 900)
    both((b) => b.drainChanges())
    both((b) => b.levelSize(BUY, 900))
    expect(fast.drainChanges()).toEqual([])
  })

  it('handles prices at both ends of the safe-integer range beside a small window', () => {
    const fast = new OrderBook({ window: 32 })
    const naive = new NaiveBook()
    const top = Number.MAX_SAFE_INTEGER
    let seq = 0
    for (const [id, side, price] of [
      ['a1', SELL, top],
      ['a2', SELL, top - 40],
      ['a3', SELL, top - 3],
      ['b1', BUY, 1],
      ['b2', BUY, 50],
      ['b3', BUY, 2],
    ] as Array<[string, Side, number]>) {
      const order = { id, owner: 'm', side, price, remaining: 2, seq: ++seq }
      fast.add(order)
      naive.add(order)
      fast.validateInternalState()
    }
    expect(fast.depth(SELL)).toEqual(naive.depth(SELL))
    expect(fast.depth(BUY)).toEqual(naive.depth(BUY))
    for (const side of [BUY, SELL] as Side[]) {
      const taker = { owner: 't', side, limit: side === BUY ? top : 1, lots: 5 }
      expect(fast.match(taker, new Recorder())).toBe(naive.match(taker, new Recorder()))
      fast.validateInternalState()
    }
    expect(fast.stateHash()).toBe(naive.stateHash())
    expect(fast.drainChanges()).toEqual(naive.drainChanges())
  })

  it('serialises resting orders without their internal links', () => {
    const book = new OrderBook()
    book.add({ id: 'a1', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 1 })
    book.add({ id: 'a2', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 2 })
    expect(JSON.parse(JSON.stringify(book.get('a2')))).toEqual({ id: 'a2', owner: 'm', side: SELL, price: 101, remaining: 3, seq: 2 })
  })
})
