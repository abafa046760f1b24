// Order handlers: placement, cancel, modify, cancel-all, for linear and option markets alike (the
// command's `kind` says which paths it came by). Admission and the order lifecycle live in their own
// modules; these are leaves.
import { DomainError } from '../../domain/errors.js'
import type { OrderSpec, OrderView } from '../../domain/orders.js'
import { BUY, SELL } from '../book/types.js'
import type { Ctx } from '../context.js'
import type { MarketRuntime } from '../marketRuntime.js'
import { matchOrder } from '../matching.js'
import { isWaiting, remainingLots, type Order } from '../order.js'
import { cancelOrders, closeOrder, newOrder, openOrdersOf, rest, retire, type CancelFilter } from '../orderLifecycle.js'
import { siblingOf, wait } from '../triggers.js'
import { reserve, without } from '../reservations.js'
import { orderView } from '../views.js'
import { checkMmp, mmpFrozenFor } from '../mmp.js'
import { bandOf, checkBand, checkFunds, checkNewOrder, checkReduceOnly, checkSpec, execute, isLots, kindOf, marketOf, requireActive, tradingAccount, type MarketKind } from '../admission.js'

export function placeOrder(ctx: Ctx, userId: string, spec: OrderSpec, kind?: MarketKind, mmp = false): OrderView | null {
  const market = marketOf(ctx, spec?.marketId, kind)
  checkSpec(spec, market)
  if (mmp && market.linear) throw new DomainError('INVALID_REQUEST', 'Market-maker protection covers option orders only', { mmp })
  requireActive(ctx, market)
  const account = tradingAccount(ctx, userId)
  if (mmp) checkMmp(ctx, account, market)
  const limit = checkNewOrder(ctx, account, market, spec)
  const order = newOrder(ctx, account, spec)
  order.mmp = mmp
  if (limit === null) wait(ctx, market, order)
  else execute(ctx, market, order, limit)
  if (order.clientOrderId !== null) account.clientOrderIds.set(order.clientOrderId, order.id)
  return ctx.replying ? orderView(order, market) : null
}

/** The caller's open order of the kind the path serves (any kind when the command does not say). */
function ownOpenOrder(ctx: Ctx, userId: string, orderId: string, kind: MarketKind | undefined): Order {
  const order = ctx.state.orders.get(orderId)
  if (!order || order.userId !== userId || (kind && kindOf(ctx.state.markets.get(order.marketId)!) !== kind)) {
    throw new DomainError('ORDER_NOT_FOUND', `No open order ${orderId}`, { orderId })
  }
  return order
}

export function cancelOrder(ctx: Ctx, userId: string, orderId: string, kind?: MarketKind): OrderView | null {
  const order = ownOpenOrder(ctx, userId, orderId, kind)
  const market = ctx.state.markets.get(order.marketId)!
  // A take-profit / stop-loss pair is one decision: cancelling either cancels both.
  const sibling = siblingOf(order)
  closeOrder(ctx, market, order, 'canceled', 'user', !isWaiting(order))
  if (sibling) closeOrder(ctx, market, sibling, 'canceled', 'user', false)
  return ctx.replying ? orderView(order, market) : null
}

/**
 * Amends price and/or quantity. Only lowering the quantity keeps time priority; any other change
 * re-enters the order as if new (it may trade if it now crosses, unless it is post-only).
 */
export function modifyOrder(ctx: Ctx, userId: string, orderId: string, priceTicks: number | null, lots: number | null, kind?: MarketKind): OrderView | null {
  const order = ownOpenOrder(ctx, userId, orderId, kind)
  const market = ctx.state.markets.get(order.marketId)!
  requireActive(ctx, market)
  if (priceTicks !== null && !isLots(priceTicks)) throw new DomainError('INVALID_PRICE', 'Invalid price')
  if (lots !== null && (!isLots(lots) || lots < market.minLots)) throw new DomainError('INVALID_QUANTITY', 'Invalid quantity')
  if (isWaiting(order)) return modifyWaiting(ctx, market, order, priceTicks, lots)
  const newPrice = priceTicks ?? order.priceTicks!
  const newLots = lots ?? order.lots
  if (newLots <= order.filledLots) {
    throw new DomainError('INVALID_QUANTITY', 'New quantity must exceed the filled quantity', { filledQuantity: market.quantities.format(order.filledLots) })
  }
  const account = order.account
  // Fail closed on a stale or missing mark for every amendment but a reduction in place, which only
  // lowers the risk (as a cancel does).
  if (newPrice !== order.priceTicks || newLots > order.lots) {
    const band = bandOf(ctx, market)
    if (newPrice !== order.priceTicks) checkBand(market, newPrice, band)
  }
  const side = order.side === 'buy' ? BUY : SELL
  const repriced = newPrice !== order.priceTicks
  if (order.postOnly && repriced && market.book.fillableLots(side, newPrice, userId, 1) > 0) {
    throw new DomainError('POST_ONLY_WOULD_CROSS', 'Post-only order would cross the book')
  }
  if (order.reduceOnly && newLots > order.lots) checkReduceOnly(account, market, order.side, newLots - order.filledLots)
  without(account, market, [order], () => checkFunds(ctx, account, market, order, newPrice, newLots - order.filledLots))

  order.updatedAt = ctx.now
  if (!repriced && newLots < order.lots) {
    order.lots = newLots
    market.book.reduce(order.id, remainingLots(order))
    reserve(account, market, order)
    ctx.touchBook(market)
    ctx.touchOrder(order)
  } else if (!repriced && newLots === order.lots) {
    ctx.touchOrder(order)
  } else {
    market.book.cancel(order.id)
    order.priceTicks = newPrice
    order.lots = newLots
    order.seq = ctx.state.advance(ctx.state.orderSeq)
    ctx.touchBook(market)
    const left = matchOrder(ctx, market, order, newPrice)
    if (left === 0) {
      order.status = 'filled'
      retire(ctx, market, order)
      ctx.touchOrder(order)
    } else if (mmpFrozenFor(ctx, order, market)) {
      // Its own fills tripped its owner's protection: the rest may not rest.
      closeOrder(ctx, market, order, 'canceled', 'mmp', false)
    } else {
      rest(ctx, market, order)
    }
  }
  return ctx.replying ? orderView(order, market) : null
}

/**
 * A conditional order still waiting changes in place: nothing rests and nothing is held until it
 * fires, when the new price and quantity are checked like any order's. A take-profit / stop-loss
 * follows its parent's fills and is not modified directly.
 */
function modifyWaiting(ctx: Ctx, market: MarketRuntime, order: Order, priceTicks: number | null, lots: number | null): OrderView | null {
  if (order.parentOrderId !== null) throw new DomainError('INVALID_REQUEST', 'A take-profit or stop-loss follows its order; cancel the pair instead')
  if (priceTicks !== null && order.type === 'market') throw new DomainError('INVALID_PRICE', 'A stop market order has no price')
  if (priceTicks !== null) order.priceTicks = priceTicks
  if (lots !== null) order.lots = lots
  order.updatedAt = ctx.now
  ctx.touchOrder(order)
  return ctx.replying ? orderView(order, market) : null
}

export function cancelAll(ctx: Ctx, userId: string, filter: CancelFilter, kind?: MarketKind): { canceled: number; ids: string[] } {
  // A market filter names a market: '' or an unknown id would otherwise mean "every market" or "none".
  if (filter.marketId !== undefined && filter.marketId !== null) {
    const market = ctx.state.markets.get(filter.marketId)
    if (!market || (kind && kindOf(market) !== kind)) throw new DomainError('INVALID_MARKET_ID', `Unknown ${kind ?? ''} market ${filter.marketId}`)
  }
  const account = ctx.state.accounts.get(userId)
  const open = account ? openOrdersOf(account, filter) : []
  const ids = cancelOrders(ctx, kind ? open.filter((o) => kindOf(ctx.state.markets.get(o.marketId)!) === kind) : open, 'user')
  return { canceled: ids.length, ids }
}
