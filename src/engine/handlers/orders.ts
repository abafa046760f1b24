// Linear orders: placement, cancel, modify, cancel-all. Every check runs before anything changes, in a
// fixed order, so a refused command leaves the state exactly as it was.
import { DomainError } from '../../domain/errors.js'
import { CLIENT_ORDER_ID, MARGIN_MODES, ORDER_TYPES, SIDES, TIME_IN_FORCE, type MarginMode, type OrderSpec } from '../../domain/orders.js'
import type { Account } from '../account.js'
import { BUY, SELL } from '../book/types.js'
import type { Ctx } from '../context.js'
import type { MarketRuntime } from '../marketRuntime.js'
import { matchOrder } from '../matching.js'
import { isWaiting, remainingLots, type Order } from '../order.js'
import { closeOrder, newOrder, rest, retire } from '../orderLifecycle.js'
import { checkAttached, checkStop, siblingOf, wait } from '../triggers.js'
import { reservationFor, reserve, without } from '../reservations.js'
import { checkOrderMargin, governingMark } from '../margin.js'
import { orderView } from '../views.js'

const isLots = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0

/** The linear market an order names; anything else is INVALID_MARKET_ID. */
export function linearMarket(ctx: Ctx, marketId: unknown): MarketRuntime {
  const market = typeof marketId === 'string' ? ctx.state.markets.get(marketId) : undefined
  if (!market || !market.linear) throw new DomainError('INVALID_MARKET_ID', `Unknown linear market ${String(marketId)}`)
  return market
}

export function tradingAccount(ctx: Ctx, userId: string): Account {
  const account = ctx.state.accounts.get(userId)
  if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', 'No account yet: deposit or use the faucet first')
  return account
}

export function requireActive(market: MarketRuntime): void {
  if (market.status !== 'active') throw new DomainError('MARKET_HALTED', `${market.spec.id} is ${market.status}`)
}

/** The engine's own look at a spec it did not build: integers where integers belong, enums in range. */
type SpecCode = 'INVALID_REQUEST' | 'INVALID_QUANTITY' | 'INVALID_PRICE' | 'INVALID_TIME_IN_FORCE'

function bad(code: SpecCode, what: string): never {
  throw new DomainError(code, `Invalid ${what}`)
}

export function checkSpec(spec: OrderSpec, market: MarketRuntime): void {
  if (typeof spec.id !== 'string' || spec.id.length === 0 || spec.id.length > 64) bad('INVALID_REQUEST', 'order id')
  if (!(SIDES as readonly string[]).includes(spec.side)) bad('INVALID_REQUEST', 'side')
  if (!(ORDER_TYPES as readonly string[]).includes(spec.type)) bad('INVALID_REQUEST', 'type')
  if (!(TIME_IN_FORCE as readonly string[]).includes(spec.timeInForce)) bad('INVALID_TIME_IN_FORCE', 'timeInForce')
  if (!(MARGIN_MODES as readonly string[]).includes(spec.marginMode)) bad('INVALID_REQUEST', 'marginMode')
  if (!isLots(spec.lots) || spec.lots < market.minLots) bad('INVALID_QUANTITY', 'quantity')
  if (spec.type === 'limit' && !isLots(spec.priceTicks)) bad('INVALID_PRICE', 'price')
  if (spec.clientOrderId !== null && !CLIENT_ORDER_ID.test(spec.clientOrderId)) bad('INVALID_REQUEST', 'clientOrderId')
  if (spec.postOnly && (spec.type !== 'limit' || spec.timeInForce !== 'gtc')) bad('INVALID_REQUEST', 'postOnly with a non-gtc order')
}

function checkBand(market: MarketRuntime, priceTicks: number, band: { bandLow: number; bandHigh: number }): void {
  if (priceTicks < band.bandLow || priceTicks > band.bandHigh) {
    throw new DomainError('INVALID_PRICE', `Price is outside the band ±${market.spec.priceBandBps / 100}% of the mark`, {
      priceBandLow: market.prices.format(band.bandLow),
      priceBandHigh: market.prices.format(band.bandHigh),
    })
  }
}

/** Refuses a spot order the spot bucket (buys) or the holding (sells) cannot fund. */
export function checkSpotFunds(account: Account, market: MarketRuntime, side: 'buy' | 'sell', priceTicks: number, lots: number): void {
  const need = reservationFor(market, side, priceTicks, lots)
  const available = side === 'buy'
    ? account.balance('spot') - account.spotLocked
    : BigInt(account.holding(market.spec.id) - (account.baseLocked.get(market.spec.id) ?? 0))
  if (need > available) {
    throw new DomainError('INSUFFICIENT_BALANCE', side === 'buy' ? 'Spot bucket lacks the USDC for this order' : 'Not enough of the asset to sell')
  }
}

/** Orders of one account in one linear market share a margin mode, and so does its position. */
export function checkMarginMode(account: Account, market: MarketRuntime, mode: MarginMode, leaving: readonly Order[] = []): void {
  if (market.spec.type === 'spot') return
  const position = account.positions.get(market.spec.id)
  let other: MarginMode | null = position && position.lots !== 0 ? position.marginMode : null
  for (const o of account.marketOrders.get(market.spec.id) ?? []) {
    if (other) break
    if (!leaving.includes(o)) other = o.marginMode
  }
  if (other && other !== mode) {
    throw new DomainError('INVALID_REQUEST', `Your ${market.spec.id} position and orders are ${other}; this order must be ${other} too`, { marginMode: other })
  }
}

/** Funds or margin for an order that may rest or trade at `priceTicks`; market orders are margined at the mark. */
export function checkFunds(ctx: Ctx, account: Account, market: MarketRuntime, o: { side: 'buy' | 'sell'; reduceOnly: boolean; marginMode: MarginMode | null }, priceTicks: number, lots: number): void {
  if (market.spec.type === 'spot') return checkSpotFunds(account, market, o.side, priceTicks, lots)
  if (o.reduceOnly) return
  checkOrderMargin(account, [{ market, side: o.side, lots, priceTicks }], o.marginMode === 'isolated')
}

function checkReduceOnly(account: Account, market: MarketRuntime, side: 'buy' | 'sell', lots: number): void {
  const held = account.positions.get(market.spec.id)?.lots ?? 0
  const reduces = side === 'buy' ? held < 0 && lots <= -held : held > 0 && lots <= held
  if (!reduces) throw new DomainError('REDUCE_ONLY_VIOLATION', 'A reduce-only order may not open or grow a position', { position: market.quantities.format(held) })
}

/** What admission looks at: a new order's spec, or a conditional order at its trigger. */
export type Admissible = Pick<OrderSpec, 'side' | 'type' | 'priceTicks' | 'lots' | 'postOnly' | 'reduceOnly' | 'marginMode'>

/** The checks of an order about to trade or rest; returns the price it may trade up to. */
export function admit(ctx: Ctx, account: Account, market: MarketRuntime, spec: Admissible): number {
  requireActive(market)
  const { ticks } = governingMark(ctx, market)
  if (spec.priceTicks !== null) checkBand(market, spec.priceTicks, ticks)
  const limit = spec.priceTicks ?? (spec.side === 'buy' ? ticks.bandHigh : ticks.bandLow)
  checkMarginMode(account, market, spec.marginMode)
  if (spec.reduceOnly) checkReduceOnly(account, market, spec.side, spec.lots)
  if (spec.postOnly && market.book.wouldCross(spec.side === 'buy' ? BUY : SELL, limit)) {
    throw new DomainError('POST_ONLY_WOULD_CROSS', 'Post-only order would cross the book')
  }
  // A spot market buy is funded at its protection price (the worst it may pay); a linear market order
  // is margined at the mark, where it is expected to fill.
  const fundingPrice = spec.priceTicks ?? (market.spec.type === 'spot' ? limit : ticks.ticks)
  checkFunds(ctx, account, market, spec, fundingPrice, spec.lots)
  return limit
}

/** Trades an admitted order and rests or ends what is left. */
export function execute(ctx: Ctx, market: MarketRuntime, order: Order, limit: number): void {
  const side = order.side === 'buy' ? BUY : SELL
  if (order.timeInForce === 'fok' && market.book.fillableLots(side, limit, order.userId, remainingLots(order)) < remainingLots(order)) {
    order.status = 'canceled'
    order.cancelReason = 'fok_unfilled'
    ctx.touchOrder(order)
    return
  }
  const left = matchOrder(ctx, market, order, limit)
  if (left === 0) {
    order.status = 'filled'
  } else if (order.type === 'limit' && order.timeInForce === 'gtc') {
    rest(ctx, market, order)
    return
  } else {
    order.status = 'canceled'
    order.cancelReason = order.type === 'market' ? 'market_unfilled' : 'ioc_unfilled'
  }
  order.updatedAt = ctx.now
  ctx.touchOrder(order)
}

/**
 * The checks of a new order once its market (active, spec valid) and account are known, as PlaceOrder
 * and PreviewOrder both run them. Returns the price it may trade up to, or null for a stop order,
 * which waits for its trigger.
 */
export function checkNewOrder(ctx: Ctx, account: Account, market: MarketRuntime, spec: OrderSpec): number | null {
  if (spec.clientOrderId !== null) {
    const existing = account.clientOrderIds.get(spec.clientOrderId)
    if (existing) throw new DomainError('DUPLICATE_CLIENT_ORDER_ID', `clientOrderId ${spec.clientOrderId} already used`, { existingOrderId: existing })
  }
  if (ctx.state.orders.has(spec.id)) throw new DomainError('INVALID_REQUEST', 'Order id already used')
  if (spec.stopTicks !== null) {
    checkStop(ctx, account, market, spec)
    return null
  }
  checkAttached(ctx, market, spec)
  return admit(ctx, account, market, spec)
}

export function placeOrder(ctx: Ctx, userId: string, spec: OrderSpec): unknown {
  const market = linearMarket(ctx, spec?.marketId)
  checkSpec(spec, market)
  requireActive(market)
  const account = tradingAccount(ctx, userId)
  const limit = checkNewOrder(ctx, account, market, spec)
  const order = newOrder(ctx, account, spec)
  if (limit === null) wait(ctx, market, order)
  else execute(ctx, market, order, limit)
  if (order.clientOrderId !== null) account.clientOrderIds.set(order.clientOrderId, order.id)
  return ctx.replying ? orderView(order, market) : null
}

function ownOpenOrder(ctx: Ctx, userId: string, orderId: string): Order {
  const order = ctx.state.orders.get(orderId)
  if (!order || order.userId !== userId) throw new DomainError('ORDER_NOT_FOUND', `No open order ${orderId}`, { orderId })
  return order
}

export function cancelOrder(ctx: Ctx, userId: string, orderId: string): unknown {
  const order = ownOpenOrder(ctx, userId, orderId)
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
export function modifyOrder(ctx: Ctx, userId: string, orderId: string, priceTicks: number | null, lots: number | null): unknown {
  const order = ownOpenOrder(ctx, userId, orderId)
  const market = ctx.state.markets.get(order.marketId)!
  requireActive(market)
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
    const { ticks } = governingMark(ctx, market)
    if (newPrice !== order.priceTicks) checkBand(market, newPrice, ticks)
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
function modifyWaiting(ctx: Ctx, market: MarketRuntime, order: Order, priceTicks: number | null, lots: number | null): unknown {
  if (order.parentOrderId !== null) throw new DomainError('INVALID_REQUEST', 'A take-profit or stop-loss follows its order; cancel the pair instead')
  if (priceTicks !== null && order.type === 'market') throw new DomainError('INVALID_PRICE', 'A stop market order has no price')
  if (priceTicks !== null) order.priceTicks = priceTicks
  if (lots !== null) order.lots = lots
  order.updatedAt = ctx.now
  ctx.touchOrder(order)
  return ctx.replying ? orderView(order, market) : null
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

export function cancelOrders(ctx: Ctx, orders: readonly Order[], reason: string): string[] {
  for (const o of orders) if (o.status === 'open') closeOrder(ctx, ctx.state.markets.get(o.marketId)!, o, 'canceled', reason, !isWaiting(o))
  return orders.map((o) => o.id)
}

export function cancelAll(ctx: Ctx, userId: string, filter: CancelFilter): { canceled: number; ids: string[] } {
  // A market filter names a market: '' or an unknown id would otherwise mean "every market" or "none".
  if (filter.marketId !== undefined && filter.marketId !== null && !ctx.state.markets.has(filter.marketId)) {
    throw new DomainError('INVALID_MARKET_ID', `Unknown market ${filter.marketId}`)
  }
  const account = ctx.state.accounts.get(userId)
  const ids = account ? cancelOrders(ctx, openOrdersOf(account, filter), 'user') : []
  return { canceled: ids.length, ids }
}
