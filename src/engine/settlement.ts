// A trade between a taker and a resting maker: both orders filled, positions moved, fees charged,
// realized PnL paid through the clearing account (options: the premium, optionTrade.ts), fills
// recorded, trade and fill events emitted.
// All amounts are integers: micro-USDC as bigint, quantities in lots, prices in ticks.
import { engineId } from '../domain/ids.js'
import type { MarginMode } from '../domain/orders.js'
import type { Account, Position } from './account.js'
import type { Ctx } from './context.js'
import { move } from './ledger.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import { retire, trimReduceOnly } from './orderLifecycle.js'
import { reserve } from './reservations.js'
import { FillPayload, TradePayload } from './payloads.js'
import { armAttached } from './triggers.js'
import { settleOptionTrade, type OptionFill } from './optionTrade.js'
import { optionLinks, valuationOf } from './optionPricing.js'
import { onProtectedFill } from './mmp.js'

/** The account's position in a market, created flat when first needed. */
export function positionIn(account: Account, market: MarketRuntime, mode: MarginMode, now: number): Position {
  const marketId = market.spec.id
  let p = account.positions.get(marketId)
  if (!p) {
    p = { userId: account.userId, marketId, market, marginMode: mode, lots: 0, cost: 0n, openTickLots: 0n, realized: 0n, funding: 0n, isolatedMargin: 0n, updatedAt: now, changedIn: 0 }
    account.addPosition(p)
  }
  return p
}

/** The position an order's fill moves; a flat position takes the order's margin mode. */
function positionFor(ctx: Ctx, account: Account, market: MarketRuntime, order: Order): Position {
  const p = positionIn(account, market, order.marginMode ?? 'cross', ctx.now)
  if (p.lots === 0 && order.marginMode) p.marginMode = order.marginMode
  return p
}

/**
 * An isolated position's own margin follows its size: opening lots bring their initial margin (out of
 * the cross available), closing lots release their share. A loss on closing beyond the margin released
 * is the insurance fund's, not the cross account's: that is what isolation promises.
 */
function settleIsolated(ctx: Ctx, market: MarketRuntime, account: Account, p: Position, move_: { held: number; closed: number; opened: number }, priceTicks: number, pnl: bigint, refId: string): bigint {
  const { held, closed, opened } = move_
  const released = closed === 0 ? 0n : closed === held ? p.isolatedMargin : (p.isolatedMargin * BigInt(closed)) / BigInt(held)
  p.isolatedMargin += applyRate(market.notional(priceTicks, opened), market.initialMargin) - released
  if (!(pnl < 0n && -pnl > released)) return 0n
  move(ctx, ctx.state.system, 'insurance', account, 'perps', -pnl - released, 'insurance', refId)
  return -pnl - released
}

/** cost × part / whole, rounded up or down. */
function share(cost: bigint, part: number, whole: number, up: boolean): bigint {
  const x = cost * BigInt(part)
  const w = BigInt(whole)
  return up ? (x + w - 1n) / w : x / w
}

/**
 * Moves a position by a fill and returns the PnL it realizes. Reducing takes the average cost of the
 * closed part, rounded against the holder; the remainder stays in the cost and is realized with the
 * last lot, so nothing is lost or created over a position's life.
 */
function applyToPosition(market: MarketRuntime, p: Position, side: 'buy' | 'sell', lots: number, priceTicks: number, notional: bigint): bigint {
  const signed = side === 'buy' ? lots : -lots
  if (p.lots === 0 || (p.lots > 0) === (signed > 0)) {
    p.lots += signed
    p.cost += notional
    return 0n
  }
  const held = Math.abs(p.lots)
  const close = Math.min(lots, held)
  const long = p.lots > 0
  const removed = close === held ? p.cost : share(p.cost, close, held, long)
  const exit = close === lots ? notional : market.notional(priceTicks, close)
  const pnl = long ? exit - removed : removed - exit
  p.cost -= removed
  p.lots += long ? -close : close
  p.realized += pnl
  if (lots > close) {
    const open = lots - close
    p.lots = side === 'buy' ? open : -open
    p.cost = market.notional(priceTicks, open)
  }
  return pnl
}

function fillRow(ctx: Ctx, market: MarketRuntime, o: Order, matchId: string, role: 'taker' | 'maker', priceTicks: number, lots: number, fee: bigint, option: OptionFill | null) {
  const row = {
    // One id per match; each side's fill is the match id with its role, unique and sortable.
    id: role === 'taker' ? `${matchId}T` : `${matchId}M`,
    matchId,
    marketId: market.spec.id,
    orderId: o.id,
    userId: o.userId,
    side: o.side,
    role,
    priceTicks,
    lots,
    fee,
    feeBps: role === 'taker' ? market.spec.takerFeeBps : market.spec.makerFeeBps,
    premium: option && option.premium,
    indexTicks: option && option.indexTicks,
    at: ctx.now,
  }
  ctx.changes.fills.push(row)
  return row
}

/** One side's spot holding moves by a fill (the USDC leg is one move between the two sides). */
function moveHolding(ctx: Ctx, market: MarketRuntime, account: Account, order: Order, lots: number, priceTicks: number, notional: bigint): void {
  const p = positionFor(ctx, account, market, order)
  applyToPosition(market, p, order.side, lots, priceTicks, notional)
  p.updatedAt = ctx.now
  ctx.touchPosition(p)
}

/**
 * Moves a derivative position by `lots` on `side` at `priceTicks` (a fill, or closing at settlement):
 * realized PnL is paid through the clearing account as `kind`, an isolated position's margin follows
 * its size. Returns the PnL and what the insurance fund covered.
 */
export function movePosition(ctx: Ctx, market: MarketRuntime, account: Account, p: Position, side: 'buy' | 'sell', lots: number, priceTicks: number, notional: bigint, refId: string, kind: 'realized_pnl' | 'settlement'): { pnl: bigint; insurance: bigint } {
  const before = p.lots
  const held = Math.abs(p.lots)
  const closed = held > 0 && p.lots > 0 === (side === 'sell') ? Math.min(lots, held) : 0
  const pnl = applyToPosition(market, p, side, lots, priceTicks, notional)
  ctx.state.trackHolding(account, before, p.lots)
  if (pnl !== 0n) move(ctx, ctx.state.system, 'clearing', account, 'perps', pnl, kind, refId)
  const insurance = p.marginMode === 'isolated' ? settleIsolated(ctx, market, account, p, { held, closed, opened: lots - closed }, priceTicks, pnl, refId) : 0n
  p.updatedAt = ctx.now
  ctx.touchPosition(p)
  return { pnl, insurance }
}

/** Settles `lots` between the taker and the resting maker at the maker's price. */
export function settleTrade(ctx: Ctx, market: MarketRuntime, taker: Order, maker: Order, priceTicks: number, lots: number): void {
  const state = ctx.state
  const system = state.system
  const takerAccount = taker.account
  const makerAccount = maker.account
  const matchId = engineId(ctx.now, state.advance(state.matchSeq))

  const takerBefore = taker.filledLots
  const makerBefore = maker.filledLots
  taker.filledLots += lots
  taker.updatedAt = ctx.now
  maker.filledLots += lots
  maker.updatedAt = ctx.now
  if (maker.filledLots === maker.lots) {
    // The book has already removed a fully filled maker.
    maker.status = 'filled'
    retire(ctx, market, maker)
  } else reserve(makerAccount, market, maker)

  const bucket = market.spec.type === 'spot' ? 'spot' : market.linear ? 'perps' : 'options'
  let takerFee: bigint
  let makerFee: bigint
  let option: OptionFill | null = null
  if (!market.linear) {
    option = settleOptionTrade(ctx, market, taker, maker, priceTicks, lots, matchId)
    takerFee = option.takerFee
    makerFee = option.makerFee
  } else {
    const notional = market.notional(priceTicks, lots)
    takerFee = applyRate(notional, market.takerFee)
    makerFee = applyRate(notional, market.makerFee)
    settleLinear(ctx, market, taker, maker, priceTicks, lots, notional, matchId)
  }
  move(ctx, takerAccount, bucket, system, 'fees', takerFee, 'fee', matchId)
  move(ctx, makerAccount, bucket, system, 'fees', makerFee, 'fee', matchId)

  const takerFill = fillRow(ctx, market, taker, matchId, 'taker', priceTicks, lots, takerFee, option)
  const makerFill = fillRow(ctx, market, maker, matchId, 'maker', priceTicks, lots, makerFee, option)
  ctx.emit(market.streams.trades, 'Trade', new TradePayload(market, matchId, priceTicks, lots, taker.side, ctx.now))
  const spot = option && optionLinks(state, market).spot
  ctx.emit(takerAccount.streams.fills, 'Fill', new FillPayload(market, takerFill, spot))
  ctx.emit(makerAccount.streams.fills, 'Fill', new FillPayload(market, makerFill, spot))
  armAttached(ctx, market, taker, takerBefore)
  armAttached(ctx, market, maker, makerBefore)
  ctx.touchOrder(taker)
  ctx.touchOrder(maker)
  trimReduceOnly(ctx, market, takerAccount, taker)
  if (makerAccount !== takerAccount) trimReduceOnly(ctx, market, makerAccount, taker)
  // Last: a trip cancels the owner's other protected orders, in this book too (the sweep allows it).
  if (option && (maker.mmp || taker.mmp)) {
    const v = valuationOf(state, market)!
    if (maker.mmp) onProtectedFill(ctx, market, maker, lots, v, taker)
    if (taker.mmp) onProtectedFill(ctx, market, taker, lots, v, taker)
  }
}

/** The linear legs of a trade: spot USDC against holdings, or derivative positions with realized PnL. */
function settleLinear(ctx: Ctx, market: MarketRuntime, taker: Order, maker: Order, priceTicks: number, lots: number, notional: bigint, matchId: string): void {
  const takerAccount = taker.account
  const makerAccount = maker.account
  if (market.spec.type === 'spot') {
    const buyer = taker.side === 'buy' ? takerAccount : makerAccount
    const seller = taker.side === 'buy' ? makerAccount : takerAccount
    move(ctx, buyer, 'spot', seller, 'spot', notional, 'trade', matchId)
    moveHolding(ctx, market, takerAccount, taker, lots, priceTicks, notional)
    moveHolding(ctx, market, makerAccount, maker, lots, priceTicks, notional)
  } else {
    movePosition(ctx, market, takerAccount, positionFor(ctx, takerAccount, market, taker), taker.side, lots, priceTicks, notional, matchId, 'realized_pnl')
    movePosition(ctx, market, makerAccount, positionFor(ctx, makerAccount, market, maker), maker.side, lots, priceTicks, notional, matchId, 'realized_pnl')
  }
}
