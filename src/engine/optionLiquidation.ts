// Liquidation of the options bucket (DESIGN.md §6): when its equity (cash + the positions' value) falls
// below its maintenance margin, the account's option orders are cancelled and its shorts are bought back
// by reduce-only IOC orders against the book, then, if that is not enough, its longs are sold; each step
// pays the liquidation fee to the insurance fund out of what is left, and once flat the insurance fund
// covers a negative bucket. Every step is a position-event row.
import { DomainError } from '../domain/errors.js'
import type { Account, Position } from './account.js'
import { execute } from './admission.js'
import type { Ctx } from './context.js'
import { LIQUIDATION_FEE } from './liquidation.js'
import { move } from './ledger.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import { optionsBucket, type OptionsBucket } from './optionMargin.js'
import { optionBand, valuationOf } from './optionPricing.js'
import { cancelOrders, newEngineOrder, openOrdersOf } from './orderLifecycle.js'
import type { PositionEventRow } from './positionEvents.js'

/** The options bucket when it can be priced (null: a mark is missing, nothing to judge by). */
function priced(ctx: Ctx, account: Account): OptionsBucket | null {
  try {
    return optionsBucket(ctx.state, account)
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NO_RISK_ARRAY') return null
    throw err
  }
}

export function checkOptionLiquidation(ctx: Ctx, account: Account, positions: readonly Position[]): void {
  const options = positions.filter((p) => p.market.spec.type === 'option')
  if (options.length === 0) return
  const before = priced(ctx, account)
  if (!before || before.equity >= before.mm) return
  cancelOrders(ctx, openOrdersOf(account).filter((o) => !ctx.state.markets.get(o.marketId)!.linear), 'liquidation')
  let last: PositionEventRow | null = null
  for (const shorts of [true, false]) {
    const now = priced(ctx, account)
    if (!shorts && (!now || now.equity >= now.mm) && account.balance('options') >= 0n) break
    for (const p of options) if (p.lots !== 0 && p.lots < 0 === shorts) last = closeStep(ctx, account, p, before) ?? last
  }
  if (last && options.every((p) => p.lots === 0) && account.balance('options') < 0n) {
    const shortfall = -account.balance('options')
    move(ctx, ctx.state.system, 'insurance', account, 'options', shortfall, 'liquidation', last.id)
    last.insurance += shortfall
  }
}

/** One step: a reduce-only IOC order for the whole position at the edge of the option's band. */
function closeStep(ctx: Ctx, account: Account, p: Position, judged: OptionsBucket): PositionEventRow | null {
  const market: MarketRuntime = p.market
  const v = valuationOf(ctx.state, market)
  if (!v || market.status !== 'active') return null
  const lots = p.lots
  const side = lots > 0 ? 'sell' : 'buy'
  const order = newEngineOrder(ctx, account, {
    marketId: market.spec.id, clientOrderId: null, side, type: 'market', timeInForce: 'ioc', priceTicks: null,
    lots: Math.abs(lots), postOnly: false, reduceOnly: true, marginMode: 'cross', stopTicks: null,
    takeProfitTicks: null, stopLossTicks: null, quoteId: null,
  })
  const fillsBefore = ctx.changes.fills.length
  const realizedBefore = p.realized
  const band = optionBand(market, v)
  execute(ctx, market, order, side === 'sell' ? band.bandLow : band.bandHigh)
  let premium = 0n
  for (let i = fillsBefore; i < ctx.changes.fills.length; i++) {
    const f = ctx.changes.fills[i]!
    if (f.orderId === order.id) premium += f.premium ?? 0n
  }
  // The fee comes out of what the bucket still holds; what it cannot pay is not charged.
  const left = account.balance('options')
  let fee = applyRate(premium, LIQUIDATION_FEE)
  if (fee > left) fee = left > 0n ? left : 0n
  move(ctx, account, 'options', ctx.state.system, 'insurance', fee, 'liquidation', order.id)
  const row: PositionEventRow = {
    id: order.id, kind: 'liquidation', userId: account.userId, marketId: market.spec.id, orderId: order.id, marginMode: p.marginMode,
    lots, closedLots: order.filledLots, notional: premium, pnl: p.realized - realizedBefore, fee, insurance: 0n,
    equity: judged.equity, maintenanceMargin: judged.mm, at: ctx.now,
  }
  ctx.changes.positionEvents.push(row)
  return row
}
