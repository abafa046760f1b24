// The order-book contract shared by the fast book (orderBook.ts) and the naive reference book used in
// tests. Prices are integer ticks and quantities integer lots: no floating point, no decimals.
// A book is a pure data structure: no clock, no randomness, no I/O, so replaying the same calls gives
// the same book and the same stateHash().

export const BUY = 0
export const SELL = 1
export type Side = typeof BUY | typeof SELL

/** A resting order as the book sees it. Extra bookkeeping fields of an implementation stay private. */
export interface BookOrder {
  readonly id: string
  /** The owning account; two orders of one owner never trade with each other. */
  readonly owner: string
  readonly side: Side
  /** Limit price in ticks (positive safe integer). */
  readonly price: number
  /** Unfilled lots (positive safe integer while resting). */
  readonly remaining: number
  /** Time priority: within a price level orders rest in increasing seq; the caller guarantees increase. */
  readonly seq: number
}

/** Receives the effects of match() in the order they happen. The book is consistent whenever it calls
 * the sink, which may cancel or reduce other resting orders (the sweep goes on from the best level). */
export interface MatchSink {
  /** `lots` traded against resting `maker` at maker.price; maker.remaining is already reduced. `maker`
   * may be a view the book rewrites for the next maker: copy what is needed beyond the call. */
  onFill(maker: BookOrder, lots: number): void
  /** A resting order of the taker's own owner was met and removed (self-trade prevention, cancel-oldest);
   * `maker` as in onFill. */
  onSelfTradeCancel(maker: BookOrder): void
}

export interface Taker {
  readonly owner: string
  readonly side: Side
  /** Worst acceptable price in ticks: a buy trades at ≤ limit, a sell at ≥ limit. */
  readonly limit: number
  readonly lots: number
}

export interface Book {
  readonly size: number
  /** Best bid in ticks, or undefined when the side is empty. O(1). */
  bestBid(): number | undefined
  /** Best ask in ticks, or undefined when the side is empty. O(1). */
  bestAsk(): number | undefined
  /** True when a `side` order at `price` would trade against the opposite side. */
  wouldCross(side: Side, price: number): boolean
  /**
   * Lots available to `side` up to `limit` from owners other than `owner`, counting at most `wanted`
   * (stops early once reached). Used for fill-or-kill.
   */
  fillableLots(side: Side, limit: number, owner: string, wanted: number): number
  /**
   * Trades `taker` against the opposite side in price-time priority up to taker.limit, at the resting
   * prices. Own resting orders met on the way are removed and reported (cancel-oldest STP). Returns the
   * lots left unfilled; the taker itself never rests (the caller adds it if it should).
   */
  match(taker: Taker, sink: MatchSink): number
  /**
   * Rests an order. It must not cross the book and its id must be new. O(log L) for a new level
   * (amortised; O(1) for the common case of a price near the touch), else O(1).
   */
  add(order: { id: string; owner: string; side: Side; price: number; remaining: number; seq: number }): void
  /** Removes an order by id; returns whether it was resting. O(1) to find and unlink. */
  cancel(id: string): boolean
  /** Lowers an order's remaining lots in place, keeping its time priority (0 < lots < remaining). */
  reduce(id: string, lots: number): void
  /** The order as it is now (a copy: later changes to the book do not show in it), or undefined. */
  get(id: string): BookOrder | undefined
  /** Total resting lots at one price on one side (0 when no level). */
  levelSize(side: Side, price: number): number
  /** Aggregated levels best-first as [priceTicks, lots], at most maxLevels of them. */
  depth(side: Side, maxLevels?: number): Array<[number, number]>
  /** Every resting order: bids best-first, then asks best-first, time priority within a level. */
  orders(): Iterable<BookOrder>
  /**
   * Levels whose size changed since the previous call, each once, as [side, price] pairs in the order
   * they were first touched; the list is cleared. The engine turns them into book deltas.
   */
  drainChanges(): Array<[Side, number]>
  /**
   * drainChanges() without allocating: writes each changed level as three numbers, side, price and its
   * total lots now (0 when gone), into `out` from index 0 in the same order, and returns how many levels.
   * `out` past three times that count keeps what it held.
   */
  drainLevels(out: number[]): number
  /** Throws an Error describing the first broken invariant. */
  validateInternalState(): void
  /** SHA-256 hex over the logical content (sides, levels, orders in priority order), not the structure. */
  stateHash(): string
}
