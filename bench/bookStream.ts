// Owns the seeded benchmark workload for order books: the BookCommand type, the stream generator and
// BookDriver, which applies commands to a Book the way the engine does (match, rest the remainder,
// drain the changed levels). The generator simulates on an OrderBook so that every cancel names an
// order that is resting at that point of the stream.
import { OrderBook } from '../src/engine/book/orderBook.js'
import { BUY, SELL, type Book, type BookOrder, type MatchSink, type Side } from '../src/engine/book/types.js'
import { mulberry32 } from '../src/domain/prng.js'

export type BookCommand =
  | { readonly type: 'limit'; readonly id: string; readonly owner: string; readonly side: Side; readonly price: number; readonly lots: number }
  /** Takes liquidity up to `lots` at any price; never rests. */
  | { readonly type: 'market'; readonly id: string; readonly owner: string; readonly side: Side; readonly lots: number }
  | { readonly type: 'cancel'; readonly id: string; readonly owner: string }

export interface BookStream {
  /** Resting limit orders that build the steady-state book; not meant to be timed. */
  readonly prefill: BookCommand[]
  readonly commands: BookCommand[]
}

export interface BookStreamOptions {
  count: number
  seed: number
  /** Resting orders to reach with the prefill and to hover around afterwards (default 20,000). */
  restingTarget?: number
}

const OWNERS = Array.from({ length: 50 }, (_, i) => `u${i}`)
const START_MID = 1_000_000
/** Non-crossing limits sit 1..MAX_OFFSET ticks from the mid, denser near it. */
const MAX_OFFSET = 200
const CROSSING_SHARE = 0.05
const MAX_LOTS = 100
/** Mean market size at the resting target; scaled up above the target and down below it. */
const MARKET_LOTS = 225

/** Limits that accept any resting price, for market orders. */
export const ANY_PRICE: Readonly<Record<Side, number>> = { [BUY]: Number.MAX_SAFE_INTEGER, [SELL]: 0 }

/** Applies commands to a book as the engine would, reusing its argument objects across commands. */
export class BookDriver {
  readonly book: Book
  private readonly sink: MatchSink
  private seq = 0
  private readonly taker = { owner: '', side: BUY as Side, limit: 0, lots: 0 }
  private readonly resting = { id: '', owner: '', side: BUY as Side, price: 0, remaining: 0, seq: 0 }
  /** Sum of the drained level sizes, so the delta reads cannot be optimised away. */
  checksum = 0
  private readonly levels: number[] = []

  constructor(book: Book, sink: MatchSink) {
    this.book = book
    this.sink = sink
  }

  apply(cmd: BookCommand): void {
    const book = this.book
    if (cmd.type === 'cancel') {
      book.cancel(cmd.id)
    } else {
      const taker = this.taker
      taker.owner = cmd.owner
      taker.side = cmd.side
      taker.limit = cmd.type === 'limit' ? cmd.price : ANY_PRICE[cmd.side]
      taker.lots = cmd.lots
      const left = book.match(taker, this.sink)
      if (left > 0 && cmd.type === 'limit') {
        const resting = this.resting
        resting.id = cmd.id
        resting.owner = cmd.owner
        resting.side = cmd.side
        resting.price = cmd.price
        resting.remaining = left
        resting.seq = ++this.seq
        book.add(resting)
      }
    }
    // As the engine does: the changed levels with their sizes, into a buffer reused across commands.
    const levels = this.levels
    const n = book.drainLevels(levels)
    for (let i = 0; i < n; i++) this.checksum += levels[3 * i + 2] as number
  }
}

/** A sink that ignores fills, for timing the book alone. */
export const NULL_SINK: MatchSink = {
  onFill() {},
  onSelfTradeCancel() {},
}

/** Ids of the resting orders, with O(1) add, remove and uniform pick. */
class RestingIds {
  private readonly ids: string[] = []
  private readonly index = new Map<string, number>()

  get size(): number {
    return this.ids.length
  }

  add(id: string): void {
    this.index.set(id, this.ids.length)
    this.ids.push(id)
  }

  remove(id: string): void {
    const i = this.index.get(id)
    if (i === undefined) return
    const last = this.ids.pop() as string
    if (last !== id) {
      this.ids[i] = last
      this.index.set(last, i)
    }
    this.index.delete(id)
  }

  pick(r: number): string {
    return this.ids[Math.floor(r * this.ids.length)] as string
  }
}

export function generateBookStream(opts: BookStreamOptions): BookStream {
  const target = opts.restingTarget ?? 20_000
  const rand = mulberry32(opts.seed)
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))
  const resting = new RestingIds()
  const gone = (maker: BookOrder) => resting.remove(maker.id)
  const book = new OrderBook()
  const driver = new BookDriver(book, {
    onFill: (maker, _lots) => {
      if (maker.remaining === 0) gone(maker)
    },
    onSelfTradeCancel: gone,
  })
  let nextId = 0
  let mid = START_MID
  let bestBid = START_MID
  let bestAsk = START_MID

  const emit = (out: BookCommand[], cmd: BookCommand): void => {
    driver.apply(cmd)
    out.push(cmd)
    if (cmd.type === 'cancel') resting.remove(cmd.id)
    else if (cmd.type === 'limit' && book.get(cmd.id) !== undefined) resting.add(cmd.id)
    // The mid follows the book, so orders keep arriving around where trading happens.
    bestBid = book.bestBid() ?? bestBid
    bestAsk = book.bestAsk() ?? bestAsk
    mid = Math.floor((bestBid + bestAsk) / 2)
  }
  const limit = (crossing: boolean): BookCommand => {
    const side: Side = rand() < 0.5 ? BUY : SELL
    let price: number
    if (crossing) price = side === BUY ? bestAsk + int(0, 3) : bestBid - int(0, 3)
    else price = side === BUY ? mid - 1 - Math.floor(MAX_OFFSET * rand() ** 2) : mid + 1 + Math.floor(MAX_OFFSET * rand() ** 2)
    return { type: 'limit', id: `o${nextId++}`, owner: OWNERS[int(0, OWNERS.length - 1)] as string, side, price, lots: int(1, MAX_LOTS) }
  }

  const prefill: BookCommand[] = []
  while (resting.size < target) emit(prefill, limit(false))

  const commands: BookCommand[] = []
  for (let i = 0; i < opts.count; i++) {
    const r = rand()
    if (r < 0.7 || (r < 0.9 && resting.size === 0)) {
      emit(commands, limit(rand() < CROSSING_SHARE))
    } else if (r < 0.9) {
      const id = resting.pick(rand())
      emit(commands, { type: 'cancel', id, owner: (book.get(id) as BookOrder).owner })
    } else {
      // Markets absorb the net inflow of limits; their size steers the book back to the target.
      const mean = MARKET_LOTS * (resting.size / target) ** 4
      const side: Side = rand() < 0.5 ? BUY : SELL
      const owner = OWNERS[int(0, OWNERS.length - 1)] as string
      emit(commands, { type: 'market', id: `o${nextId++}`, owner, side, lots: int(1, Math.max(1, Math.round(2 * mean))) })
    }
  }
  return { prefill, commands }
}
