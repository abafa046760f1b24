// Liquidation (DESIGN.md §6). After marks move, an account whose cross equity is below its
// maintenance margin has its perps-bucket orders cancelled and its cross positions closed by reduce-only
// IOC orders against the book, a step per check until flat; an isolated position whose own margin plus
// unrealized PnL is below its maintenance margin is closed alone. Each step pays a liquidation fee to the
// insurance fund, which in turn covers what an account cannot (a shortfall). Every step is a row.
import { SYSTEM_USER } from '../domain/buckets.js'
import { DomainError } from '../domain/errors.js'
import type { Account, Position } from './account.js'
import type { Ctx } from './context.js'
import { execute } from './admission.js'
import { cancelOrders, openOrdersOf } from './orderLifecycle.js'
import { move } from './ledger.js'
import { crossMargin, isolatedMm, unrealized, type CrossMargin } from './margin.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import { newEngineOrder } from './orderLifecycle.js'
import type { PositionEventRow } from './positionEvents.js'
import { checkOptionLiquidation } from './optionLiquidation.js'

/** The liquidation fee, in millionths of the notional a step closes (0.5%). */
export const LIQUIDATION_FEE = 5_000n

const isDerivativePosition = (p: Position) => p.lots !== 0 && p.market.spec.type !== 'spot'

/** Checks every account holding a derivative position (the state's index of them, not every account),
 * in user id order (the same on every replay). */
export function checkLiquidations(ctx: Ctx): void {
  const accounts = [...ctx.state.holders].filter((a) => a.userId !== SYSTEM_USER).sort((a, b) => (a.userId < b.userId ? -1 : 1))
  for (const account of accounts) {
    const all = [...account.positions.values()].filter(isDerivativePosition).sort((a, b) => (a.marketId < b.marketId ? -1 : 1))
    checkOptionLiquidation(ctx, account, all)
    const positions = all.filter((p) => p.market.linear)
    // The portfolio is priced only for accounts with cross positions: isolated ones are judged alone.
    if (positions.some((p) => p.marginMode === 'cross')) {
      let cross: CrossMargin | null = null
      try {
        cross = crossMargin(account)
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'NO_RISK_ARRAY')) throw err // else: no price to judge by
      }
      if (cross && cross.equity < cross.mm) liquidateCross(ctx, account, positions, cross)
    }
    for (const p of positions) {
      if (p.marginMode !== 'isolated' || p.lots === 0) continue
      const market = ctx.state.markets.get(p.marketId)!
      const ticks = ctx.state.markTicks.get(p.marketId)?.ticks
      if (ticks === undefined) continue
      const equity = p.isolatedMargin + unrealized(market, p, ticks)
      const mm = isolatedMm(market, ticks, Math.abs(p.lots))
      if (equity < mm) {
        cancelOrders(ctx, openOrdersOf(account, { marketId: p.marketId }), 'liquidation')
        closeStep(ctx, account, market, p, equity, mm)
      }
    }
  }
}

function liquidateCross(ctx: Ctx, account: Account, positions: Position[], m: CrossMargin): void {
  const linear = openOrdersOf(account).filter((o) => {
    const market = ctx.state.markets.get(o.marketId)!
    return market.spec.type !== 'spot' && o.marginMode !== 'isolated'
  })
  cancelOrders(ctx, linear, 'liquidation')
  let last: PositionEventRow | null = null
  for (const p of positions) {
    if (p.marginMode === 'cross' && p.lots !== 0) last = closeStep(ctx, account, ctx.state.markets.get(p.marketId)!, p, m.equity, m.mm) ?? last
  }
  // Once every cross position is closed, whatever the cross equity lacks is the insurance fund's.
  if (last && positions.every((p) => p.marginMode !== 'cross' || p.lots === 0)) {
    const after = crossMargin(account)
    if (after.equity < 0n) {
      move(ctx, ctx.state.system, 'insurance', account, 'perps', -after.equity, 'liquidation', last.id)
      last.insurance += -after.equity
    }
  }
}

/** One liquidation step: a reduce-only IOC order for the whole position against the book. */
function closeStep(ctx: Ctx, account: Account, market: MarketRuntime, p: Position, equity: bigint, mm: bigint): PositionEventRow | null {
  const ticks = ctx.state.markTicks.get(p.marketId)
  if (!ticks || market.status !== 'active') return null
  const lots = p.lots
  const side = lots > 0 ? 'sell' : 'buy'
  const order = newEngineOrder(ctx, account, {
    marketId: market.spec.id, clientOrderId: null, side, type: 'market', timeInForce: 'ioc', priceTicks: null,
    lots: Math.abs(lots), postOnly: false, reduceOnly: true, marginMode: p.marginMode, stopTicks: null,
    takeProfitTicks: null, stopLossTicks: null, quoteId: null,
  })
  const id = order.id
  const fillsBefore = ctx.changes.fills.length
  const realizedBefore = p.realized
  const marginBefore = p.isolatedMargin
  execute(ctx, market, order, side === 'sell' ? ticks.bandLow : ticks.bandHigh)
  let notional = 0n
  for (let i = fillsBefore; i < ctx.changes.fills.length; i++) {
    const f = ctx.changes.fills[i]!
    if (f.orderId === id) notional += market.notional(f.priceTicks, f.lots)
  }
  const pnl = p.realized - realizedBefore
  // The fee comes out of what is left: an isolated position's own margin, or the cross equity. What
  // cannot be paid is not charged (the insurance fund would only pay itself).
  const left = p.marginMode === 'isolated' ? marginBefore - p.isolatedMargin + pnl : crossMargin(account).equity
  let fee = applyRate(notional, LIQUIDATION_FEE)
  if (fee > left) fee = left > 0n ? left : 0n
  move(ctx, account, 'perps', ctx.state.system, 'insurance', fee, 'liquidation', id)
  const row: PositionEventRow = {
    id, kind: 'liquidation', userId: account.userId, marketId: market.spec.id, orderId: id, marginMode: p.marginMode,
    lots, closedLots: order.filledLots, notional, pnl, fee, insurance: 0n, equity, maintenanceMargin: mm, at: ctx.now,
  }
  ctx.changes.positionEvents.push(row)
  return row
}
