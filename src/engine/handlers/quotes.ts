// Quotes: a market maker's resting orders placed together, all or none. Quote legs are post-only
// (a quote never takes liquidity), and a bulk call may first cancel the caller's orders on the market,
// or, with `amend`, replace them by amending them in place where it can (same ids, same rows).
import { DomainError } from '../../domain/errors.js'
import type { OrderSpec, OrderView } from '../../domain/orders.js'
import { BUY, SELL } from '../book/types.js'
import type { Ctx } from '../context.js'
import type { MarketRuntime } from '../marketRuntime.js'
import { isWaiting, remainingLots, type Order } from '../order.js'
import { newOrder, rest } from '../orderLifecycle.js'
import { checkOrderMargin } from '../margin.js'
import { checkOptionOrders } from '../optionMargin.js'
import { reservationFor, reserve, without } from '../reservations.js'
import { orderView } from '../views.js'
import { bandOf, checkMarginMode, marketOf, requireActive, tradingAccount, type MarketKind } from '../admission.js'
import { cancelOrders, openOrdersOf } from '../orderLifecycle.js'
import { checkMmp } from '../mmp.js'

export const MAX_BULK_QUOTES = 100

export interface QuotesResult {
  marketId: string
  quoteId: string | null
  canceled: string[]
  results: Array<{ side: 'buy' | 'sell'; response: OrderView | null }>
}

export function placeQuotes(ctx: Ctx, userId: string, marketId: string, quoteId: string | null, specs: OrderSpec[], cancelFirst: boolean, amend = false, kind?: MarketKind): QuotesResult {
  const market = marketOf(ctx, marketId, kind)
  if (!Array.isArray(specs) || specs.length > MAX_BULK_QUOTES || (specs.length === 0 && !cancelFirst)) {
    throw new DomainError('INVALID_REQUEST', `A quote has 1 to ${MAX_BULK_QUOTES} orders`)
  }
  if (amend && !cancelFirst) throw new DomainError('INVALID_REQUEST', 'amend replaces the orders cancelAll would cancel: send it with cancelAll')
  requireActive(ctx, market)
  const account = tradingAccount(ctx, userId)
  // Quotes on options are under market-maker protection: refused while it is frozen.
  if (!market.linear && specs.length > 0) checkMmp(ctx, account, market)
  const toCancel = cancelFirst ? openOrdersOf(account, { marketId }) : []

  const cids = new Set<string>()
  let bestBid = -Infinity
  let bestAsk = Infinity
  let buyNeed = 0n
  let sellNeed = 0n
  const ticks = specs.length > 0 ? bandOf(ctx, market) : null
  for (const spec of specs) {
    if (spec.marketId !== marketId || spec.type !== 'limit' || spec.timeInForce !== 'gtc' || !spec.postOnly || spec.reduceOnly) {
      throw new DomainError('INVALID_REQUEST', 'Quote orders are post-only gtc limit orders of the quoted market')
    }
    if (!Number.isSafeInteger(spec.lots) || spec.lots < market.minLots) throw new DomainError('INVALID_QUANTITY', 'Invalid quantity')
    if (!Number.isSafeInteger(spec.priceTicks) || spec.priceTicks! <= 0) throw new DomainError('INVALID_PRICE', 'Invalid price')
    const price = spec.priceTicks!
    if (price < ticks!.bandLow || price > ticks!.bandHigh) throw new DomainError('INVALID_PRICE', 'Quote price is outside the price band')
    if (spec.clientOrderId !== null) {
      // Twice in one quote is a malformed request: no order holds it yet for a 409 to return.
      if (cids.has(spec.clientOrderId)) throw new DomainError('INVALID_REQUEST', `clientOrderId ${spec.clientOrderId} is given twice in this quote`)
      const existing = account.clientOrderIds.get(spec.clientOrderId)
      if (existing) throw new DomainError('DUPLICATE_CLIENT_ORDER_ID', `clientOrderId ${spec.clientOrderId} already used`, { existingOrderId: existing })
      cids.add(spec.clientOrderId)
    }
    if (ctx.state.orders.has(spec.id)) throw new DomainError('INVALID_REQUEST', 'Order id already used')
    const side = spec.side === 'buy' ? BUY : SELL
    // With cancelFirst the caller's own orders are going away: only others' liquidity counts.
    const crosses = cancelFirst ? market.book.fillableLots(side, price, userId, 1) > 0 : market.book.wouldCross(side, price)
    if (crosses) throw new DomainError('POST_ONLY_WOULD_CROSS', `The ${spec.side} quote at ${market.prices.format(price)} would cross the book`)
    if (spec.side === 'buy') bestBid = Math.max(bestBid, price)
    else bestAsk = Math.min(bestAsk, price)
    if (market.spec.type === 'spot') {
      const need = reservationFor(market, spec.side, price, spec.lots)
      if (spec.side === 'buy') buyNeed += need
      else sellNeed += need
    }
  }
  if (bestBid >= bestAsk) throw new DomainError('INVALID_PRICE', 'The quote\'s bids must be below its asks')

  const mode = specs[0]?.marginMode ?? 'cross'
  if (specs.some((s) => s.marginMode !== mode)) throw new DomainError('INVALID_REQUEST', 'A quote\'s orders share one margin mode')
  // Funds and margin as they will be once the cancellations are done.
  without(account, market, toCancel, () => {
    if (market.spec.type === 'spot') {
      const spot = account.balance('spot') - account.spotLocked
      const base = BigInt(account.holding(marketId) - (account.baseLocked.get(marketId) ?? 0))
      if (buyNeed > spot || sellNeed > base) throw new DomainError('INSUFFICIENT_BALANCE', 'The quote cannot be funded')
    } else if (!market.linear) {
      if (specs.length > 0) checkOptionOrders(ctx.state, account, specs.map((s) => ({ market, side: s.side, lots: s.lots, priceTicks: s.priceTicks! })))
    } else if (specs.length > 0) {
      checkMarginMode(account, market, mode, toCancel)
      checkOrderMargin(account, specs.map((s) => ({ market, side: s.side, lots: s.lots, priceTicks: s.priceTicks! })), mode === 'isolated')
    }
  })

  const reused = amend ? pairForAmend(toCancel, specs, quoteId) : new Map<OrderSpec, Order>()
  const kept = new Set(reused.values())
  const canceled = cancelOrders(ctx, reused.size === 0 ? toCancel : toCancel.filter((o) => !kept.has(o)), 'replaced_by_quote')
  amendInPlace(ctx, market, reused)
  const results = specs.map((spec) => {
    let order = reused.get(spec)
    if (!order) {
      order = newOrder(ctx, account, spec)
      order.mmp = !market.linear
      if (order.clientOrderId !== null) account.clientOrderIds.set(order.clientOrderId, order.id)
      rest(ctx, market, order)
    }
    return { side: order.side, response: ctx.replying ? orderView(order, market) : null }
  })
  return { marketId, quoteId, canceled, results }
}

/** An order a bulk amend may turn into a quote: a plain resting quote order of this quoteId, never filled. */
const reusable = (o: Order, quoteId: string | null, spec: OrderSpec) =>
  o.status === 'open' && o.quoteId === quoteId && o.type === 'limit' && o.timeInForce === 'gtc' && o.postOnly && !o.reduceOnly &&
  !isWaiting(o) && o.parentOrderId === null && o.clientOrderId === null && o.filledLots === 0 && o.marginMode === spec.marginMode

/**
 * Pairs the quotes with the caller's orders they amend: per side, reusable orders best price first with
 * quotes (those without a clientOrderId) best price first. An order with a fill, a clientOrderId or
 * another quoteId is never reused: it is cancelled as by cancelAll, so an order's fills and its
 * clientOrderId always belong to what it was when they were given.
 */
function pairForAmend(orders: readonly Order[], specs: readonly OrderSpec[], quoteId: string | null): Map<OrderSpec, Order> {
  const pairs = new Map<OrderSpec, Order>()
  for (const side of ['buy', 'sell'] as const) {
    const better = (a: number, b: number) => (side === 'buy' ? b - a : a - b)
    const quotes = specs.filter((s) => s.side === side && s.clientOrderId === null).sort((a, b) => better(a.priceTicks!, b.priceTicks!))
    if (quotes.length === 0) continue
    const held = orders.filter((o) => o.side === side && reusable(o, quoteId, quotes[0]!)).sort((a, b) => better(a.priceTicks!, b.priceTicks!) || a.seq - b.seq)
    for (let i = 0; i < quotes.length && i < held.length; i++) pairs.set(quotes[i]!, held[i]!)
  }
  return pairs
}

/**
 * Gives each reused order its quote's price and quantity, as a modify would: a lower quantity at the same
 * price keeps its place, a new price or a larger quantity re-enters the book (a new seq). Every order
 * that moves leaves the book before any re-enters, so no two of the caller's orders ever meet on the way
 * (the quote was checked as a whole: its bids are below its asks and it crosses nobody's liquidity).
 */
function amendInPlace(ctx: Ctx, market: MarketRuntime, reused: ReadonlyMap<OrderSpec, Order>): void {
  const moving: Array<[Order, OrderSpec]> = []
  for (const [spec, order] of reused) {
    if (spec.priceTicks === order.priceTicks && spec.lots === order.lots) continue
    order.updatedAt = ctx.now
    if (spec.priceTicks === order.priceTicks && spec.lots < order.lots) {
      order.lots = spec.lots
      market.book.reduce(order.id, remainingLots(order))
      reserve(order.account, market, order)
      ctx.touchBook(market)
      ctx.touchOrder(order)
      continue
    }
    market.book.cancel(order.id)
    moving.push([order, spec])
  }
  for (const [order, spec] of moving) {
    order.priceTicks = spec.priceTicks
    order.lots = spec.lots
    order.seq = ctx.state.advance(ctx.state.orderSeq)
    rest(ctx, market, order)
  }
}
