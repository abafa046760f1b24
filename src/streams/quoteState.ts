// The caller's quote state on /ws/quotes (subscription type `myQuotes`, by market id or underlying;
// needs a credential): the caller's open quote orders (orders with a quoteId) in those markets, then
// each change to one of them, made from the engine's OrderUpdate events that carry a quoteId.
//   QuoteSnapshot  {kind: "snapshot", symbol, quotes: QuoteOrder[]}   first, and again after a resync
//   QuoteUpdate    {kind: "update", ...QuoteOrder}                    placed, amended, (partly) filled, ended
// A QuoteUpdate's eventSeq is the caller's order-event sequence: increasing, with gaps where events of
// their other orders fall; its causationId is the OrderUpdate it came from. An order whose status is
// no longer `open` has left the quote state.
import type { OrderView } from '../domain/orders.js'

export interface QuoteOrder {
  orderId: string
  quoteId: string
  marketId: string
  clientOrderId: string | null
  side: 'buy' | 'sell'
  price: string | null
  quantity: string
  filledQuantity: string
  status: OrderView['status']
  cancelReason: string | null
  updatedAt: string
}

export interface QuoteSnapshotPayload {
  kind: 'snapshot'
  symbol: string
  quotes: QuoteOrder[]
}

export type QuoteUpdatePayload = { kind: 'update' } & QuoteOrder

/** The quote-state view of an order with a quoteId. */
export function quoteOrder(o: OrderView): QuoteOrder {
  return {
    orderId: o.id,
    quoteId: o.quoteId!,
    marketId: o.marketId,
    clientOrderId: o.clientOrderId,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    filledQuantity: o.filledQuantity,
    status: o.status,
    cancelReason: o.cancelReason,
    updatedAt: o.updatedAt,
  }
}
