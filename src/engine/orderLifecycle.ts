// Orders entering and leaving the book, with their reservations and bookkeeping kept in step, and the
// account's open orders found and cancelled by filter.
import { engineId } from '../domain/ids.js'
import type { CancelReason, EndReason, OrderSpec } from '../domain/orders.js'
import { BUY, SELL } from './book/types.js'
import type { Ctx } from './context.js'
import type { MarketRuntime } from './marketRuntime.js'
import { isWaiting, remainingLots, type Order } from './order.js'
import { reserve, trackOpen } from './reservations.js'
import type { Account } from './account.js'

export function newOrder(ctx: Ctx, account: Account, spec: OrderSpec, parentOrderId: string | null = null): Order {
  return build(ctx, account, spec, parentOrderId, ctx.state.advance(ctx.state.orderSeq))
}

/** An order the engine places itself (take-profit, stop-loss, liquidation): its id is a ULID made from
 * the clock and the order's own seq, so it is the same on every replay and no two of them meet. */
export function newEngineOrder(ctx: Ctx, account: Account, spec: Omit<OrderSpec, 'id'>, parentOrderId: string | null = null): Order {
  const seq = ctx.state.advance(ctx.state.orderSeq)
  return build(ctx, account, { ...spec, id: engineId(ctx.now, seq) }, parentOrderId, seq)
}

function build(ctx: Ctx, account: Account, spec: OrderSpec, parentOrderId: string | null, seq: number): Order {
  return {
    id: spec.id,
    userId: account.userId,
    account,
    marketId: spec.marketId,
    clientOrderId: spec.clientOrderId,
    side: spec.side,
    type: spec.type,
    timeInForce: spec.type === 'market' && spec.timeInForce === 'gtc' ? 'ioc' : spec.timeInForce,
    priceTicks: spec.priceTicks,
    lots: spec.lots,
    filledLots: 0,
    status: 'open',
    postOnly: spec.postOnly,
    reduceOnly: spec.reduceOnly,
    marginMode: spec.marginMode,
    stopTicks: spec.stopTicks,
    takeProfitTicks: spec.takeProfitTicks,
    stopLossTicks: spec.stopLossTicks,
    triggeredAt: null,
    parentOrderId,
    quoteId: spec.quoteId,
    mmp: false,
    cancelReason: null,
    seq,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    reserved: 0n,
    heldLots: 0,
    heldPrice: 0,
    openSlot: -1,
    changedIn: 0,
  }
}

/** Puts an open order's remainder on the book and reserves for it. */
export function rest(ctx: Ctx, market: MarketRuntime, order: Order): void {
  const account = order.account
  market.book.add({
    id: order.id,
    owner: order.userId,
    side: order.side === 'buy' ? BUY : SELL,
    price: order.priceTicks!,
    remaining: remainingLots(order),
    seq: order.seq,
  })
  ctx.state.orders.set(order)
  trackOpen(account, order, true)
  reserve(account, market, order)
  ctx.touchBook(market)
  ctx.touchOrder(order)
}

/** Ends an order (cancel, expiry of its remainder, rejection); `inBook` when it still rests there. */
export function closeOrder(ctx: Ctx, market: MarketRuntime, order: Order, status: 'canceled' | 'rejected' | 'filled', reason: EndReason | null, inBook: boolean): void {
  if (inBook) market.book.cancel(order.id)
  order.status = status
  order.cancelReason = reason
  order.updatedAt = ctx.now
  retire(ctx, market, order)
  ctx.touchBook(market)
  ctx.touchOrder(order)
}

/**
 * Keeps an account's resting reduce-only orders in a market within its position after the position
 * moved: on each side, what they could still fill may not exceed what they would close (a long for
 * sells, a short for buys; nothing once flat or flipped). The newest are reduced or cancelled first
 * (reason `reduce_only`), so the oldest keep their place. Each is admitted against the position alone,
 * so several may together exceed it until the first fill; this keeps any of them from growing or
 * flipping the position. `taking` is the order being matched, not in the book.
 */
export function trimReduceOnly(ctx: Ctx, market: MarketRuntime, account: Account, taking: Order): void {
  const open = account.reduceOnlyOpen === 0 ? undefined : account.marketOrders.get(market.spec.id)
  if (open === undefined) return
  let resting: Order[] | null = null
  for (const o of open) if (o.reduceOnly && o !== taking && !isWaiting(o)) (resting ??= []).push(o)
  if (resting === null) return
  const held = account.positions.get(market.spec.id)?.lots ?? 0
  resting.sort((a, b) => b.seq - a.seq)
  for (const side of ['buy', 'sell'] as const) {
    let excess = -(side === 'sell' ? Math.max(0, held) : Math.max(0, -held))
    for (const o of resting) if (o.side === side) excess += remainingLots(o)
    for (let i = 0; i < resting.length && excess > 0; i++) {
      const o = resting[i]!
      if (o.side !== side) continue
      const left = remainingLots(o)
      if (left <= excess) {
        closeOrder(ctx, market, o, 'canceled', 'reduce_only', true)
      } else {
        o.lots -= excess
        o.updatedAt = ctx.now
        market.book.reduce(o.id, left - excess)
        reserve(account, market, o)
        ctx.touchBook(market)
        ctx.touchOrder(o)
      }
      excess -= Math.min(left, excess)
    }
  }
}

/** An order that has ended (filled, cancelled, rejected) leaves the open state and holds nothing. */
export function retire(ctx: Ctx, market: MarketRuntime, order: Order): void {
  const account = order.account
  reserve(account, market, order)
  ctx.state.orders.delete(order.id)
  if (isWaiting(order)) ctx.state.waiting.get(order.marketId)?.delete(order)
  trackOpen(account, order, false)
}

export interface CancelFilter {
  marketId?: string | null
  quoteId?: string | null
  clientOrderId?: string | null
}

/** The account's open orders, oldest first, that match the filter. */
export function openOrdersOf(account: Account, filter: CancelFilter = {}): Order[] {
  const out: Order[] = []
  for (const [marketId, orders] of account.marketOrders) {
    if (filter.marketId && marketId !== filter.marketId) continue
    for (const o of orders) {
      if (filter.quoteId && o.quoteId !== filter.quoteId) continue
      if (filter.clientOrderId && o.clientOrderId !== filter.clientOrderId) continue
      out.push(o)
    }
  }
  return out.sort((a, b) => a.seq - b.seq)
}

export function cancelOrders(ctx: Ctx, orders: readonly Order[], reason: CancelReason): string[] {
  for (const o of orders) if (o.status === 'open') closeOrder(ctx, ctx.state.markets.get(o.marketId)!, o, 'canceled', reason, !isWaiting(o))
  return orders.map((o) => o.id)
}
