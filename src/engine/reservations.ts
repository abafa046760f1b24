// What an open order holds back so that it can always be honoured: a spot buy holds the USDC for its
// remainder at its limit plus the larger fee, a spot sell its base lots, an isolated order the initial
// margin of its remainder; a cross order (and every option order) counts in its account's exposure,
// which the portfolio margin (the options bucket) prices together with the positions. Reduce-only orders and orders waiting for a trigger hold nothing.
import type { Account, OrderExposure } from './account.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import { isWaiting, remainingLots, type Order } from './order.js'

/** What `lots` of a spot or isolated order at `priceTicks` would hold. */
export function reservationFor(market: MarketRuntime, side: 'buy' | 'sell', priceTicks: number, lots: number): bigint {
  if (market.spec.type === 'spot') {
    if (side === 'sell') return BigInt(lots)
    const notional = market.notional(priceTicks, lots)
    const fee = market.takerFee > market.makerFee ? market.takerFee : market.makerFee
    return notional + applyRate(notional, fee)
  }
  return applyRate(market.notional(priceTicks, lots), market.initialMargin)
}

/** The account's exposure in `market`, created empty when first needed: a linear market's in the
 * account's map, an option market's on its leg (so the portfolio margin never walks option exposures). */
function exposureOf(account: Account, market: MarketRuntime): OrderExposure {
  const fresh = (): OrderExposure => ({ market, buyLots: 0, sellLots: 0, buyTickLots: 0n, sellTickLots: 0n, changes: 0 })
  if (!market.linear) {
    const leg = account.optionLeg(market)
    if (!leg.exposure) {
      leg.exposure = fresh()
      market.exposed.add(account)
    }
    return leg.exposure
  }
  let e = account.exposure.get(market.spec.id)
  if (!e) account.exposure.set(market.spec.id, (e = fresh()))
  return e
}

/** lots × price − heldLots × heldPrice in tick·lots: in doubles when both products are exact (below
 * 2^53, as they are for any realistic order; this runs on every fill), else in bigints. */
export function tickLotsDelta(heldLots: number, heldPrice: number, lots: number, price: number): bigint {
  const before = heldLots * heldPrice
  const after = lots * price
  if (Number.isSafeInteger(before) && Number.isSafeInteger(after)) return BigInt(after - before)
  return BigInt(lots) * BigInt(price) - BigInt(heldLots) * BigInt(heldPrice)
}

/** lots × price in tick·lots, exact (tickLotsDelta from nothing held). */
export const tickLots = (lots: number, price: number): bigint => tickLotsDelta(0, 0, lots, price)

function count(account: Account, market: MarketRuntime, order: Order, lots: number, price: number): void {
  if (lots === order.heldLots && price === order.heldPrice) return
  const e = exposureOf(account, market)
  const delta = tickLotsDelta(order.heldLots, order.heldPrice, lots, price)
  e.changes++
  if (order.side === 'buy') {
    e.buyLots += lots - order.heldLots
    e.buyTickLots += delta
  } else {
    e.sellLots += lots - order.heldLots
    e.sellTickLots += delta
  }
  if (e.buyLots === 0 && e.sellLots === 0) {
    if (market.linear) {
      account.exposure.delete(order.marketId)
    } else {
      market.exposed.delete(account)
      account.optionLeg(market).exposure = null
      account.pruneOptionLeg(order.marketId)
    }
  }
  order.heldLots = lots
  order.heldPrice = price
}

/** Brings what the order holds in line with its current state (call after every change to it). */
export function reserve(account: Account, market: MarketRuntime, order: Order): void {
  const open = order.status === 'open' && order.priceTicks !== null && !isWaiting(order)
  const lots = open ? remainingLots(order) : 0
  if (market.spec.type !== 'spot' && order.marginMode !== 'isolated') {
    // A reduce-only order only closes: it holds nothing, except an option buy, which pays its premium.
    const holds = !order.reduceOnly || (!market.linear && order.side === 'buy')
    count(account, market, order, holds ? lots : 0, lots === 0 ? 0 : order.priceTicks!)
    return
  }
  const next = lots > 0 && !(order.reduceOnly && market.spec.type !== 'spot') ? reservationFor(market, order.side, order.priceTicks!, lots) : 0n
  const delta = next - order.reserved
  if (delta === 0n) return
  order.reserved = next
  if (market.spec.type !== 'spot') account.isolatedOrderMargin += delta
  else if (order.side === 'buy') account.spotLocked += delta
  else account.baseLocked.set(market.spec.id, (account.baseLocked.get(market.spec.id) ?? 0) + Number(delta))
}

/**
 * Runs `check` as if these orders were gone (a modify replacing an order, a bulk quote cancelling
 * first), then puts back exactly what they held. Nothing else may change inside `check`.
 */
export function without<T>(account: Account, market: MarketRuntime, orders: readonly Order[], check: () => T): T {
  const saved = orders.map((o) => ({ o, status: o.status }))
  for (const o of orders) {
    o.status = 'canceled'
    reserve(account, market, o)
  }
  try {
    return check()
  } finally {
    for (const { o, status } of saved) {
      o.status = status
      reserve(account, market, o)
    }
  }
}

/** Keeps the per-market index of open orders in step: call when an order opens or ends (idempotent). */
export function trackOpen(account: Account, order: Order, open: boolean): void {
  if (open === order.openSlot >= 0) return
  if (order.reduceOnly) account.reduceOnlyOpen += open ? 1 : -1
  let orders = account.marketOrders.get(order.marketId)
  if (open) {
    if (!orders) account.marketOrders.set(order.marketId, (orders = []))
    order.openSlot = orders.length
    orders.push(order)
    return
  }
  // Swap-remove: the last order takes the leaving one's slot.
  const last = orders!.pop()!
  if (last !== order) {
    orders![order.openSlot] = last
    last.openSlot = order.openSlot
  }
  order.openSlot = -1
  if (orders!.length === 0) account.marketOrders.delete(order.marketId)
}
