// Engine objects in their wire shapes, built only when a reply or an event needs them.
import type { OrderView } from '../domain/orders.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'

const iso = (ms: number) => new Date(ms).toISOString()

export function orderView(o: Order, m: MarketRuntime): OrderView {
  const price = (t: number | null) => (t === null ? null : m.prices.format(t))
  return {
    id: o.id,
    userId: o.userId,
    marketId: o.marketId,
    clientOrderId: o.clientOrderId,
    side: o.side,
    type: o.type,
    timeInForce: o.timeInForce,
    price: price(o.priceTicks),
    quantity: m.quantities.format(o.lots),
    filledQuantity: m.quantities.format(o.filledLots),
    status: o.status,
    postOnly: o.postOnly,
    reduceOnly: o.reduceOnly,
    marginMode: m.linear ? o.marginMode : null,
    stopPrice: price(o.stopTicks),
    takeProfitPrice: price(o.takeProfitTicks),
    stopLossPrice: price(o.stopLossTicks),
    triggeredAt: o.triggeredAt === null ? null : iso(o.triggeredAt),
    parentOrderId: o.parentOrderId,
    quoteId: o.quoteId,
    cancelReason: o.cancelReason,
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
  }
}
