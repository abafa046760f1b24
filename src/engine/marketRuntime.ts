// A listed market as the engine holds it: its fixed spec, its trading status, its book and the book's
// sequence, plus the integer scales the hot path needs (decimals stay at the boundary).
import { D, type Decimal } from '../domain/decimal.js'
import type { MarketSpec, MarketStatus } from '../domain/market.js'
import { scaleOf, type Scale } from '../domain/scale.js'
import { OrderBook } from './book/orderBook.js'

export class MarketRuntime {
  readonly spec: MarketSpec
  status: MarketStatus
  readonly book = new OrderBook()
  /** Sequence of the last book delta; a snapshot carries it, the next delta is bookSeq + 1. */
  bookSeq: number
  settledAtMs: number | null = null
  settlementPrice: string | null = null
  readonly tick: Decimal
  readonly step: Decimal
  /** Ticks → price string and lots → quantity string, for events and rows. */
  readonly prices: Scale
  readonly quantities: Scale

  constructor(spec: MarketSpec, status: MarketStatus = 'active', bookSeq = 0) {
    this.spec = spec
    this.status = status
    this.bookSeq = bookSeq
    this.tick = D(spec.tickSize)
    this.step = D(spec.stepSize)
    this.prices = scaleOf(spec.tickSize)
    this.quantities = scaleOf(spec.stepSize)
  }
}

/** Why a spec cannot be listed, or null when it can. */
export function invalidSpec(spec: MarketSpec): string | null {
  const tick = D(spec.tickSize)
  const step = D(spec.stepSize)
  if (!tick.gt(0) || !step.gt(0)) return 'tick and step must be positive'
  if (!D(spec.minQuantity).gt(0) || !D(spec.minQuantity).mod(step).isZero()) {
    return 'minimum quantity must be a positive multiple of the step'
  }
  // Linear notional must be an integer number of micro-USDC per tick·lot, so fills never round.
  if (spec.type !== 'option' && !tick.mul(step).mul(1_000_000).isInteger()) {
    return 'tick × step must be a whole number of micro-USDC'
  }
  if ((spec.type === 'future' || spec.type === 'option') && spec.expiryMs === null) return 'expiry required'
  if (spec.type === 'option' && (spec.strike === null || spec.optionType === null)) return 'strike required'
  return null
}
