// Event payloads that capture integers when the engine emits them and render wire strings only when
// serialized (JSON.stringify calls toJSON): what an event says is fixed at its command, while the cost
// of decimal formatting is paid by the transport that sends it, not by the engine's hot path.
import { microToString } from '../domain/decimal.js'
import type { Account } from './account.js'
import type { FillRow } from './changes.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import { orderViewAt } from './views.js'

/** An order as it stood when the event was emitted: the live object for what never changes, and a copy
 * of every field a fill, modify, trigger or cancel may change (a whole copy is three times the bytes). */
export class OrderPayload {
  private readonly priceTicks: number | null
  private readonly lots: number
  private readonly filledLots: number
  private readonly status: Order['status']
  private readonly triggeredAt: number | null
  private readonly cancelReason: Order['cancelReason']
  private readonly updatedAt: number
  constructor(private readonly order: Order, private readonly market: MarketRuntime) {
    this.priceTicks = order.priceTicks
    this.lots = order.lots
    this.filledLots = order.filledLots
    this.status = order.status
    this.triggeredAt = order.triggeredAt
    this.cancelReason = order.cancelReason
    this.updatedAt = order.updatedAt
  }
  toJSON() {
    return orderViewAt(this.order, this.market, this.priceTicks, this.lots, this.filledLots, this.status, this.triggeredAt, this.cancelReason, this.updatedAt)
  }
}

export class BalancePayload {
  private readonly wallet: bigint
  private readonly spot: bigint
  private readonly perps: bigint
  private readonly options: bigint
  private readonly spotLocked: bigint
  private readonly optionsLocked: bigint
  private readonly deposited: bigint
  private readonly withdrawing: bigint
  /** `optionsLocked`: the options bucket's locked part (optionMargin.ts), computed by the caller. */
  constructor(a: Account, optionsLocked: bigint) {
    this.optionsLocked = optionsLocked
    this.deposited = a.deposited
    this.withdrawing = a.withdrawing
    this.wallet = a.balance('wallet')
    this.spot = a.balance('spot')
    this.perps = a.balance('perps')
    this.options = a.balance('options')
    this.spotLocked = a.spotLocked
  }
  toJSON() {
    return {
      wallet: microToString(this.wallet),
      spot: microToString(this.spot),
      perps: microToString(this.perps),
      options: microToString(this.options),
      spotLocked: microToString(this.spotLocked),
      optionsLocked: microToString(this.optionsLocked),
      onchainDepositTotal: microToString(this.deposited),
      pendingWithdrawalTotal: microToString(this.withdrawing),
    }
  }
}

/**
 * The order book stream's payload on the wire: an OrderbookSnapshot (bids and asks, best first, read from
 * the book by the API: src/streams/streams.ts) or an OrderbookDelta (the changed levels: BookDeltaPayload).
 */
export interface BookPayload {
  kind: 'snapshot' | 'delta'
  marketId: string
  sequence: number
  bids?: Array<[string, string]>
  asks?: Array<[string, string]>
  changes?: Array<{ side: 'bid' | 'ask'; price: string; size: string }>
}

/** Changed levels as flat [side (0 bid, 1 ask), priceTicks, lots] triples. */
export class BookDeltaPayload {
  constructor(
    private readonly market: MarketRuntime,
    readonly sequence: number,
    private readonly levels: number[],
  ) {}
  toJSON(): BookPayload {
    const m = this.market
    const changes: NonNullable<BookPayload['changes']> = []
    for (let i = 0; i < this.levels.length; i += 3) {
      changes.push({ side: this.levels[i] === 0 ? 'bid' : 'ask', price: m.prices.format(this.levels[i + 1]!), size: m.quantities.format(this.levels[i + 2]!) })
    }
    return { kind: 'delta', marketId: m.spec.id, sequence: this.sequence, changes }
  }
}

export class TradePayload {
  constructor(
    private readonly market: MarketRuntime,
    private readonly tradeId: string,
    private readonly priceTicks: number,
    private readonly lots: number,
    private readonly takerSide: 'buy' | 'sell',
    private readonly tsMs: number,
  ) {}
  toJSON() {
    const m = this.market
    return { tradeId: this.tradeId, marketId: m.spec.id, price: m.prices.format(this.priceTicks), quantity: m.quantities.format(this.lots), takerSide: this.takerSide, tsMs: this.tsMs }
  }
}

export class FillPayload {
  constructor(
    private readonly market: MarketRuntime,
    private readonly fill: FillRow,
    /** Options: the spot market, whose tick the fill's index is in. */
    private readonly spot: MarketRuntime | null = null,
  ) {}
  toJSON() {
    const m = this.market
    const f = this.fill
    return {
      tradeId: f.id, marketId: m.spec.id, orderId: f.orderId, side: f.side, role: f.role, price: m.prices.format(f.priceTicks),
      quantity: m.quantities.format(f.lots), fee: microToString(f.fee), feeBps: f.feeBps,
      premium: f.premium === null ? null : microToString(f.premium),
      indexPrice: f.indexTicks === null || !this.spot ? null : this.spot.prices.format(f.indexTicks),
      tsMs: f.at,
    }
  }
}
