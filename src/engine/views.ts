// Engine objects in their wire shapes, built only when a reply or an event needs them.
import type { OrderView } from '../domain/orders.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'

const DAY_MS = 86_400_000
let dayStart = Number.NaN
let dayPrefix = ''
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`)

/** An instant as the wire writes it, `Date#toISOString`'s text: the date part once per day, the time of
 * day by integer arithmetic (an order view has two or three instants, an order row as many). */
export function isoTime(ms: number): string {
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    if (!Number.isSafeInteger(ms)) return new Date(ms).toISOString()
    const start = Math.floor(ms / DAY_MS) * DAY_MS
    const prefix = new Date(start).toISOString().slice(0, 11)
    // Years past 9999 or before 0 are written with a sign and six digits: not cached.
    if (prefix.length !== 11 || prefix[10] !== 'T' || prefix[0] === '+' || prefix[0] === '-') return new Date(ms).toISOString()
    dayStart = start
    dayPrefix = prefix
  }
  const t = ms - dayStart
  const milli = t % 1_000
  const seconds = Math.floor(t / 1_000)
  return `${dayPrefix}${pad2(Math.floor(seconds / 3_600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
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
