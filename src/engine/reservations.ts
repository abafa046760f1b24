// What a resting order holds back so that it can always be honoured when it fills: a spot buy holds
// the USDC for its remainder at its limit plus the larger fee, a spot sell holds its base lots, a
// perpetual or futures order holds initial margin (reduce-only orders hold nothing).
import type { Account } from './account.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import { remainingLots, type Order } from './order.js'
import { orderMargin } from './risk.js'

/** What `lots` of this order at `priceTicks` would hold. */
export function reservationFor(market: MarketRuntime, side: 'buy' | 'sell', reduceOnly: boolean, priceTicks: number, lots: number): bigint {
  if (market.spec.type === 'spot') {
    if (side === 'sell') return BigInt(lots)
    const notional = market.notional(priceTicks, lots)
    const fee = market.takerFee > market.makerFee ? market.takerFee : market.makerFee
    return notional + applyRate(notional, fee)
  }
  return reduceOnly ? 0n : orderMargin(market, priceTicks, lots)
}

/** Sets what the order holds to match its current remainder, keeping the account's totals in step. */
export function reserve(account: Account, market: MarketRuntime, order: Order): void {
  const next = order.status === 'open' && order.priceTicks !== null
    ? reservationFor(market, order.side, order.reduceOnly, order.priceTicks, remainingLots(order))
    : 0n
  const delta = next - order.reserved
  if (delta === 0n) return
  order.reserved = next
  if (market.spec.type !== 'spot') account.orderMargin += delta
  else if (order.side === 'buy') account.spotLocked += delta
  else account.baseLocked.set(market.spec.id, (account.baseLocked.get(market.spec.id) ?? 0) + Number(delta))
}
