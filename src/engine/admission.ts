// Admission: every check an order passes before it trades or rests, in a fixed order, so a refused
// command leaves the state exactly as it was; and execution of an admitted order against the book.
// Linear and option orders take the same path: only the mark, the band and the funds differ by kind.
import { DomainError } from '../domain/errors.js'
import { CLIENT_ORDER_ID, MARGIN_MODES, ORDER_TYPES, SIDES, TIME_IN_FORCE, type MarginMode, type OrderSpec } from '../domain/orders.js'
import type { Account } from './account.js'
import { BUY, SELL } from './book/types.js'
import type { Ctx } from './context.js'
import type { MarketRuntime } from './marketRuntime.js'
import { cancelUnfundedBids, matchOrder } from './matching.js'
import { remainingLots, type Order } from './order.js'
import { rest } from './orderLifecycle.js'
import { checkAttached, checkStop } from './triggers.js'
import { reservationFor } from './reservations.js'
import { checkOrderMargin, governingMark } from './margin.js'
import { checkOptionOrders } from './optionMargin.js'
import { governingValuation, optionBand } from './optionPricing.js'
import { mmpFrozenFor } from './mmp.js'

/** Which family of paths a command came by: `/orders` (options) or `/perps/orders` (linear). */
export type MarketKind = 'linear' | 'option'

export const isLots = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0

export const kindOf = (market: MarketRuntime): MarketKind => (market.linear ? 'linear' : 'option')

/** The market of the kind an order names (linear when the command does not say); anything else is
 * INVALID_MARKET_ID. */
export function marketOf(ctx: Ctx, marketId: unknown, kind: MarketKind = 'linear'): MarketRuntime {
  const market = typeof marketId === 'string' ? ctx.state.markets.get(marketId) : undefined
  if (!market || kindOf(market) !== kind) throw new DomainError('INVALID_MARKET_ID', `Unknown ${kind} market ${String(marketId)}`)
  return market
}

export function tradingAccount(ctx: Ctx, userId: string): Account {
  const account = ctx.state.accounts.get(userId)
  if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', 'No account yet: deposit or use the faucet first')
  return account
}

/** Trading needs an active market not yet past its expiry (its settlement may still be on the way). */
export function requireActive(ctx: Ctx, market: MarketRuntime): void {
  if (market.status !== 'active') throw new DomainError('MARKET_HALTED', `${market.spec.id} is ${market.status}`)
  const expiry = market.spec.expiryMs
  if (expiry !== null && ctx.now >= expiry) throw new DomainError('MARKET_HALTED', `${market.spec.id} has expired`)
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
  if (!market.linear && (spec.stopTicks !== null || spec.takeProfitTicks !== null || spec.stopLossTicks !== null)) {
    bad('INVALID_REQUEST', 'stop, take-profit or stop-loss on an option order')
  }
}

export function checkBand(market: MarketRuntime, priceTicks: number, band: { bandLow: number; bandHigh: number }): void {
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
  if (market.spec.type === 'spot' || !market.linear) return
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
  // An option buy pays its premium even when it closes a short; a reduce-only sell only closes a long.
  if (!market.linear) return o.reduceOnly && o.side === 'sell' ? undefined : checkOptionOrders(ctx.state, account, [{ market, side: o.side, lots, priceTicks }])
  if (o.reduceOnly) return
  checkOrderMargin(account, [{ market, side: o.side, lots, priceTicks }], o.marginMode === 'isolated')
}

export function checkReduceOnly(account: Account, market: MarketRuntime, side: 'buy' | 'sell', lots: number): void {
  const held = account.positions.get(market.spec.id)?.lots ?? 0
  const reduces = side === 'buy' ? held < 0 && lots <= -held : held > 0 && lots <= held
  if (!reduces) throw new DomainError('REDUCE_ONLY_VIOLATION', 'A reduce-only order may not open or grow a position', { position: market.quantities.format(held) })
}

/** The band an order's price must lie in, from its governing mark (fail closed when stale or missing):
 * a linear market's own mark (a perpetual's index), an option's valuation at its forward and index. */
export function bandOf(ctx: Ctx, market: MarketRuntime): { ticks: number; bandLow: number; bandHigh: number } {
  if (market.linear) return governingMark(ctx, market).ticks
  const band = optionBand(market, governingValuation(ctx, market))
  return { ticks: band.bandLow, ...band }
}

/** What admission looks at: a new order's spec, or a conditional order at its trigger. */
export type Admissible = Pick<OrderSpec, 'side' | 'type' | 'priceTicks' | 'lots' | 'postOnly' | 'reduceOnly' | 'marginMode'>

/** The checks of an order about to trade or rest; returns the price it may trade up to. */
export function admit(ctx: Ctx, account: Account, market: MarketRuntime, spec: Admissible): number {
  requireActive(ctx, market)
  const ticks = bandOf(ctx, market)
  if (spec.priceTicks !== null) checkBand(market, spec.priceTicks, ticks)
  const limit = spec.priceTicks ?? (spec.side === 'buy' ? ticks.bandHigh : ticks.bandLow)
  checkMarginMode(account, market, spec.marginMode)
  if (spec.reduceOnly) checkReduceOnly(account, market, spec.side, spec.lots)
  if (spec.postOnly && market.book.wouldCross(spec.side === 'buy' ? BUY : SELL, limit)) {
    throw new DomainError('POST_ONLY_WOULD_CROSS', 'Post-only order would cross the book')
  }
  // A spot or option market order is funded at its protection price (the worst it may pay or receive);
  // a linear market order is margined at the mark, where it is expected to fill.
  const fundingPrice = spec.priceTicks ?? (market.spec.type === 'spot' || !market.linear ? limit : ticks.ticks)
  checkFunds(ctx, account, market, spec, fundingPrice, spec.lots)
  return limit
}

/** Trades an admitted order and rests or ends what is left. */
export function execute(ctx: Ctx, market: MarketRuntime, order: Order, limit: number): void {
  const side = order.side === 'buy' ? BUY : SELL
  // Fill-or-kill counts only the bids that can pay (matchOrder would clear the others on the way).
  if (order.timeInForce === 'fok' && !market.linear && side === SELL) cancelUnfundedBids(ctx, market, order, limit)
  if (order.timeInForce === 'fok' && market.book.fillableLots(side, limit, order.userId, remainingLots(order)) < remainingLots(order)) {
    order.status = 'canceled'
    order.cancelReason = 'fok_unfilled'
    ctx.touchOrder(order)
    return
  }
  const left = matchOrder(ctx, market, order, limit)
  if (left === 0) {
    order.status = 'filled'
  } else if (order.type === 'limit' && order.timeInForce === 'gtc' && !mmpFrozenFor(ctx, order, market)) {
    rest(ctx, market, order)
    return
  } else {
    order.status = 'canceled'
    // A protected order whose own fills tripped its owner's protection does not rest either.
    order.cancelReason = order.type === 'market' ? 'market_unfilled' : order.timeInForce === 'gtc' ? 'mmp' : 'ioc_unfilled'
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

