// Running an incoming order against the book: fills settle as they happen; an own resting order met
// on the way is cancelled (self-trade prevention, cancel-oldest). One sink is reused for every match.
// An option sell first clears the bids whose owners could not pay for the fill.
import { BUY, SELL, type BookOrder, type MatchSink } from './book/types.js'
import type { Ctx } from './context.js'
import type { MarketRuntime } from './marketRuntime.js'
import { remainingLots, type Order } from './order.js'
import { closeOrder } from './orderLifecycle.js'
import { settleTrade } from './settlement.js'
import type { Account } from './account.js'
import { maxOptionFee, optionLinks, premiumOf, valuationOf } from './optionPricing.js'

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
  if (!market.linear && taker.side === 'sell') cancelUnfundedBids(ctx, market, taker, limitTicks)
  sink.ctx = ctx
  sink.market = market
  sink.taker = taker
  const left = market.book.match({ owner: taker.userId, side: taker.side === 'buy' ? BUY : SELL, limit: limitTicks, lots: remainingLots(taker) }, sink)
  ctx.touchBook(market)
  return left
}

/**
 * An option bid is paid from its owner's options cash when it fills. Before a sell sweeps the bids, the
 * ones it would reach whose owner could no longer pay their premium and fee (the index rose, or the cash
 * went to other fills) are cancelled, reason `insufficient_funds`: a fill never overdraws a bucket.
 */
export function cancelUnfundedBids(ctx: Ctx, market: MarketRuntime, taker: Order, limitTicks: number): void {
  const v = valuationOf(ctx.state, market)
  if (!v) return
  const spot = optionLinks(ctx.state, market).spot
  let left = remainingLots(taker)
  const spent = new Map<Account, bigint>()
  const unfunded: Order[] = []
  for (const b of market.book.orders()) {
    if (b.side !== BUY || b.price < limitTicks || left <= 0) break
    if (b.owner === taker.userId) continue
    const o = ctx.state.orders.get(b.id)!
    const lots = Math.min(b.remaining, left)
    const need = (spent.get(o.account) ?? 0n) + premiumOf(market, spot, b.price, lots, v.spotTicks) + maxOptionFee(market, spot, lots, v.spotTicks)
    if (need > o.account.balance('options')) {
      unfunded.push(o)
      continue
    }
    spent.set(o.account, need)
    left -= lots
  }
  for (const o of unfunded) closeOrder(ctx, market, o, 'canceled', 'insufficient_funds', true)
}
