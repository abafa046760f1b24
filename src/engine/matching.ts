// Running an incoming order against the book: fills settle as they happen; an own resting order met
// on the way is cancelled (self-trade prevention, cancel-oldest). One sink is reused for every match.
import { BUY, SELL, type BookOrder, type MatchSink } from './book/types.js'
import type { Ctx } from './context.js'
import type { MarketRuntime } from './marketRuntime.js'
import { remainingLots, type Order } from './order.js'
import { closeOrder } from './orderLifecycle.js'
import { settleTrade } from './settlement.js'

class Sink implements MatchSink {
  ctx!: Ctx
  market!: MarketRuntime
  taker!: Order

  onFill(maker: BookOrder, lots: number): void {
    settleTrade(this.ctx, this.market, this.taker, this.ctx.state.orders.get(maker.id)!, maker.price, lots)
  }

  onSelfTradeCancel(maker: BookOrder): void {
    closeOrder(this.ctx, this.market, this.ctx.state.orders.get(maker.id)!, 'canceled', 'self_trade', false)
  }
}

const sink = new Sink()

/** Trades `taker` up to `limitTicks`; returns the lots left unfilled. */
export function matchOrder(ctx: Ctx, market: MarketRuntime, taker: Order, limitTicks: number): number {
  sink.ctx = ctx
  sink.market = market
  sink.taker = taker
  const left = market.book.match({ owner: taker.userId, side: taker.side === 'buy' ? BUY : SELL, limit: limitTicks, lots: remainingLots(taker) }, sink)
  ctx.touchBook(market)
  return left
}
