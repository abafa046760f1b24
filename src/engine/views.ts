// Engine objects in their wire shapes, built only when a reply or an event needs them.
import type { OrderView } from '../domain/orders.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'

/** An instant as the wire writes it. One entry remembered: an order's createdAt and updatedAt, and the
 * orders of one batch, mostly share their millisecond. */
let lastMs = Number.NaN
let lastIso = ''
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastIso
}

export function orderView(o: Order, m: MarketRuntime): OrderView {
  return orderViewAt(o, m, o.priceTicks, o.lots, o.filledLots, o.status, o.triggeredAt, o.cancelReason, o.updatedAt)
}

/** The order with the fields a fill, modify, trigger or cancel may change as given (as they stood when an
 * event was emitted), without copying the order. */
export function orderViewAt(
  o: Order,
  m: MarketRuntime,
  priceTicks: number | null,
  lots: number,
  filledLots: number,
  status: Order['status'],
  triggeredAt: number | null,
  cancelReason: Order['cancelReason'],
  updatedAt: number,
): OrderView {
  const prices = m.prices
  return {
    id: o.id,
    userId: o.userId,
    marketId: o.marketId,
    clientOrderId: o.clientOrderId,
    side: o.side,
    type: o.type,
    timeInForce: o.timeInForce,
    price: priceTicks === null ? null : prices.format(priceTicks),
    quantity: m.quantities.format(lots),
    filledQuantity: m.quantities.format(filledLots),
    status,
    postOnly: o.postOnly,
    reduceOnly: o.reduceOnly,
    marginMode: m.linear ? o.marginMode : null,
    stopPrice: o.stopTicks === null ? null : prices.format(o.stopTicks),
    takeProfitPrice: o.takeProfitTicks === null ? null : prices.format(o.takeProfitTicks),
    stopLossPrice: o.stopLossTicks === null ? null : prices.format(o.stopLossTicks),
    triggeredAt: triggeredAt === null ? null : isoTime(triggeredAt),
    parentOrderId: o.parentOrderId,
    quoteId: o.quoteId,
    cancelReason,
    createdAt: isoTime(o.createdAt),
    updatedAt: isoTime(updatedAt),
  }
}
