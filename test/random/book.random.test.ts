// Seeded randomized lockstep test: the production OrderBook and the naive reference book receive the
// same operations and must agree on every result, every match effect and every observable state.
import { expect, it } from 'vitest'
import { OrderBook } from '../../src/engine/book/orderBook.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side, type Taker } from '../../src/engine/book/types.js'
import { NaiveBook } from '../support/naiveBook.js'
import { mulberry32 } from '../../src/domain/prng.js'

const STEPS = 20_000
const OWNERS = ['u0', 'u1', 'u2', 'u3', 'u4']

class Recorder implements MatchSink {
  readonly events: Array<[string, string, number, number, number?]> = []
  onFill(maker: BookOrder, lots: number): void {
    this.events.push(['fill', maker.id, lots, maker.remaining, maker.price])
  }
  onSelfTradeCancel(maker: BookOrder): void {
    this.events.push(['stp', maker.id, maker.remaining, maker.price])
  }
}

/** The logical fields only: OrderBook hands out its internal nodes, which carry links. */
const view = (o: BookOrder | undefined) =>
  o && { id: o.id, owner: o.owner, side: o.side, price: o.price, remaining: o.remaining, seq: o.seq }

/** Everything a caller can observe about a book, as plain data. */
const observe = (b: Book, levels: number) => ({
  size: b.size,
  bestBid: b.bestBid() ?? null,
  bestAsk: b.bestAsk() ?? null,
  bids: b.depth(BUY),
  asks: b.depth(SELL),
  topBids: b.depth(BUY, levels),
  topAsks: b.depth(SELL, levels),
  hash: b.stateHash(),
})

/** Deep equality, cheap enough for every step; expect() runs on a mismatch only, to report the diff. */
function expectSame(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected)
}

// Narrow books trade constantly; wide ones open and close far more distinct price levels. A 32-tick
// ladder window puts the deeper levels in the fallback tree; jumps of the mid move the market out of
// the window and back, so levels keep crossing between the ladder and the tree.
it.each([
  { seed: 1, width: 12, window: undefined, jump: 0 },
  { seed: 7, width: 12, window: undefined, jump: 0 },
  { seed: 2024, width: 12, window: undefined, jump: 0 },
  { seed: 0xdecafbad, width: 30, window: undefined, jump: 0 },
  { seed: 3, width: 30, window: 32, jump: 0 },
  { seed: 11, width: 12, window: 32, jump: 60 },
  { seed: 99, width: 30, window: 64, jump: 200 },
])('seed $seed, width $width, window $window, jump $jump: OrderBook and NaiveBook agree on every step', ({ seed, width, window, jump }) => {
  const rand = mulberry32(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T
  const fast = new OrderBook(window === undefined ? {} : { window })
  const naive = new NaiveBook()
  const ids: string[] = []
  const fastLevels: number[] = []
  const naiveLevels: number[] = []
  const seen = { fills: 0, stp: 0, rested: 0, cancelled: 0, reduced: 0, maxSize: 0, treeLevels: 0, windowMoves: 0 }
  // The ladder internals, to count how often levels sit in the tree and the windows move.
  const ladders = fast as unknown as Record<'bids' | 'asks', { base: number; tree: { size: number } }>
  const bases = [ladders.bids.base, ladders.asks.base]
  let seq = 0
  let mid = 1_000

  /** Runs one call on both books and expects equal results. */
  const both = <T>(call: (book: Book) => T): T => {
    const result = call(fast)
    expectSame(call(naive), result)
    return result
  }

  const match = (taker: Taker): number => {
    const fastSink = new Recorder()
    const naiveSink = new Recorder()
    const left = fast.match(taker, fastSink)
    expectSame([naive.match(taker, naiveSink), naiveSink.events], [left, fastSink.events])
    for (const [kind] of fastSink.events) {
      if (kind === 'fill') seen.fills++
      else seen.stp++
    }
    return left
  }

  // Mostly live orders, some already filled or cancelled, a few never seen.
  const randomId = (): string => {
    const r = rand()
    if (r < 0.7 && fast.size > 0) return pick([...fast.orders()]).id
    if (r < 0.9 && ids.length > 0) return pick(ids)
    return `ghost${int(0, 50)}`
  }

  for (let step = 0; step < STEPS; step++) {
    const side: Side = rand() < 0.5 ? BUY : SELL
    const owner = pick(OWNERS)
    const op = rand()
    if (op < 0.45) {
      // A limit order as the engine runs it: match first, rest the remainder.
      const id = `o${step}`
      const price = side === BUY ? mid + int(-width, 2) : mid + int(-2, width)
      const left = match({ owner, side, limit: price, lots: int(1, 20) })
      if (left > 0) {
        const order = { id, owner, side, price, remaining: left, seq: ++seq }
        both((b) => b.add(order))
        ids.push(id)
        seen.rested++
      }
    } else if (op < 0.55) {
      match({ owner, side, limit: side === BUY ? Number.MAX_SAFE_INTEGER : 0, lots: int(1, 40) })
    } else if (op < 0.75) {
      const id = randomId()
      if (both((b) => b.cancel(id))) seen.cancelled++
    } else if (op < 0.85) {
      const id = randomId()
      const order = both((b) => view(b.get(id)))
      if (order !== undefined && order.remaining > 1) {
        const lots = int(1, order.remaining - 1)
        both((b) => b.reduce(id, lots))
        seen.reduced++
      }
    } else if (op < 0.93) {
      const limit = side === BUY ? mid + int(-5, 15) : mid - int(-5, 15)
      const wanted = int(1, 150)
      both((b) => b.fillableLots(side, limit, owner, wanted))
    } else {
      const price = mid + int(-10, 10)
      both((b) => [b.wouldCross(side, price), b.levelSize(side, price)])
    }
    if (rand() < 0.02) mid += int(-width, width) >> 3
    // Jumps away and back, ~100 steps apart; what rests at the old mid stays there.
    if (jump > 0 && rand() < 0.01) mid += mid > 1_000 ? -jump : jump

    fast.validateInternalState()
    naive.validateInternalState()
    const levels = int(1, 4)
    expectSame(observe(naive, levels), observe(fast, levels))
    // Drain most steps; sometimes let changes pile up across several operations.
    if (rand() < 0.7) {
      if (rand() < 0.5) {
        const changes = both((b) => b.drainChanges())
        both((b) => changes.map(([s, price]) => b.levelSize(s, price)))
      } else {
        // Each book's own buffer, reused: stale entries past the count must not matter.
        both((b) => {
          const out = b === fast ? fastLevels : naiveLevels
          return out.slice(0, 3 * b.drainLevels(out))
        })
      }
    }
    seen.maxSize = Math.max(seen.maxSize, fast.size)
    seen.treeLevels += ladders.bids.tree.size + ladders.asks.tree.size
    for (const [i, side] of [ladders.bids, ladders.asks].entries()) {
      if (side.base !== bases[i]) seen.windowMoves++
      bases[i] = side.base
    }
  }

  // The run must have exercised every path it claims to test.
  expect(seen.fills).toBeGreaterThan(1_000)
  expect(seen.stp).toBeGreaterThan(100)
  expect(seen.cancelled).toBeGreaterThan(500)
  expect(seen.reduced).toBeGreaterThan(500)
  expect(seen.maxSize).toBeGreaterThan(20)
  if (window !== undefined) expect(seen.treeLevels).toBeGreaterThan(0)
  // Beyond each side's first placement.
  if (jump > 0) expect(seen.windowMoves).toBeGreaterThan(2)
})
