// The money and positions of an option trade (DESIGN.md §5): the buyer pays the premium, price ×
// quantity × the spot index at the fill, rounded once to the micro-USDC, straight to the seller through
// the ledger (options buckets); each side pays its fee on the underlying notional, capped at 12.5% of
// the premium. Realized PnL of an option position is bookkeeping: the premium has already moved.
import type { Account, Position } from './account.js'
import type { Ctx } from './context.js'
import { move } from './ledger.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import { optionFee, optionLinks, premiumOf, valuationOf } from './optionPricing.js'
import { positionIn } from './settlement.js'

export interface OptionFill {
  premium: bigint
  /** The spot index the premium was converted at, in the spot market's ticks. */
  indexTicks: number
  takerFee: bigint
  makerFee: bigint
}

/** Pays the premium of `lots` at `priceTicks` from buyer to seller and moves both positions. */
export function settleOptionTrade(ctx: Ctx, market: MarketRuntime, taker: Order, maker: Order, priceTicks: number, lots: number, matchId: string): OptionFill {
  const v = valuationOf(ctx.state, market)
  // Admission judged the taker by this valuation in the same command: it exists.
  if (!v) throw new Error(`option trade in ${market.spec.id} without a valuation`)
  const spot = optionLinks(ctx.state, market).spot
  const premium = premiumOf(market, spot, priceTicks, lots, v.spotTicks)
  const [buyer, seller] = taker.side === 'buy' ? [taker.account, maker.account] : [maker.account, taker.account]
  move(ctx, buyer, 'options', seller, 'options', premium, 'premium', matchId)
  moveOptionPosition(ctx, market, taker.account, taker.side, lots, priceTicks, premium)
  moveOptionPosition(ctx, market, maker.account, maker.side, lots, priceTicks, premium)
  return {
    premium,
    indexTicks: v.spotTicks,
    takerFee: optionFee(market, spot, lots, v.spotTicks, premium, market.takerFee),
    makerFee: optionFee(market, spot, lots, v.spotTicks, premium, market.makerFee),
  }
}

/** cost × part / whole, rounded up or down. */
function share(cost: bigint, part: number, whole: number, up: boolean): bigint {
  const x = cost * BigInt(part)
  const w = BigInt(whole)
  return up ? (x + w - 1n) / w : x / w
}

/**
 * Moves an option position by a fill of `lots` for `premium`. Closing lots take the average premium of
 * the open ones (rounded against the holder; the remainder goes with the last lot) and realize the
 * difference; what is left over after a flip opens the other way.
 */
export function moveOptionPosition(ctx: Ctx, market: MarketRuntime, account: Account, side: 'buy' | 'sell', lots: number, priceTicks: number, premium: bigint): Position {
  const p = positionIn(account, market, 'cross', ctx.now)
  const before = p.lots
  const signed = side === 'buy' ? lots : -lots
  if (p.lots === 0 || p.lots > 0 === signed > 0) {
    p.lots += signed
    p.cost += premium
    p.openTickLots += BigInt(priceTicks) * BigInt(lots)
  } else {
    const held = Math.abs(p.lots)
    const close = Math.min(lots, held)
    const long = p.lots > 0
    const removed = close === held ? p.cost : share(p.cost, close, held, long)
    const exit = close === lots ? premium : share(premium, close, lots, false)
    p.realized += long ? exit - removed : removed - exit
    p.cost -= removed
    p.openTickLots -= close === held ? p.openTickLots : share(p.openTickLots, close, held, false)
    p.lots += long ? -close : close
    if (lots > close) {
      p.lots = side === 'buy' ? lots - close : close - lots
      p.cost = premium - exit
      p.openTickLots = BigInt(priceTicks) * BigInt(lots - close)
    }
  }
  ctx.state.trackHolding(account, before, p.lots, p)
  p.updatedAt = ctx.now
  ctx.touchPosition(p)
  return p
}
