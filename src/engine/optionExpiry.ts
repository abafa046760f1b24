// Option expiry (DESIGN.md §7): at its expiry the option's open orders are cancelled and every position
// settles in cash at intrinsic value against the 30-minute TWAP of its forward's source (the matching
// future's mark, or spot's for a weekly), through the clearing account. A long receives its payout
// rounded down, a short pays it rounded up; a short that cannot pay is covered by the insurance fund.
import { D } from '../domain/decimal.js'
import { engineId } from '../domain/ids.js'
import type { Ctx } from './context.js'
import { sampleSettlementTwaps, settlementSource, settlementTicks } from './expiry.js'
import { move } from './ledger.js'
import type { MarketRuntime } from './marketRuntime.js'
import { cancelOrders } from './orderLifecycle.js'
import type { PositionEventRow } from './positionEvents.js'

export function settleOption(ctx: Ctx, market: MarketRuntime): void {
  sampleSettlementTwaps(ctx, market.spec.family)
  const orders = [...ctx.state.orders.values()].filter((o) => o.marketId === market.spec.id).sort((a, b) => a.seq - b.seq)
  cancelOrders(ctx, orders, 'expired')
  const source = settlementSource(ctx, market)
  const ticks = source ? settlementTicks(ctx, market, source) : null
  if (!source || ticks === null) return
  const price = source.tick.mul(ticks)
  market.settlementPrice = source.prices.format(ticks)
  const strike = D(market.spec.strike!)
  const intrinsic = market.spec.optionType === 'call' ? price.minus(strike) : strike.minus(price)
  // Micro-USDC per lot, exact; rounded once per position.
  const perLot = intrinsic.gt(0) ? intrinsic.mul(market.step).mul(1_000_000) : D(0)
  const holders = [...ctx.state.accounts.values()]
    .filter((a) => (a.positions.get(market.spec.id)?.lots ?? 0) !== 0)
    .sort((a, b) => (a.userId < b.userId ? -1 : 1))
  const system = ctx.state.system
  for (const account of holders) {
    const p = account.positions.get(market.spec.id)!
    const lots = p.lots
    const long = lots > 0
    const payout = BigInt(perLot.mul(Math.abs(lots)).toDecimalPlaces(0, long ? D.ROUND_FLOOR : D.ROUND_CEIL).toFixed(0))
    const id = engineId(ctx.now, ctx.state.next('settlement'))
    if (payout > 0n) {
      if (long) move(ctx, system, 'clearing', account, 'options', payout, 'settlement', id)
      else move(ctx, account, 'options', system, 'clearing', payout, 'settlement', id)
    }
    let insurance = 0n
    const cash = account.balance('options')
    if (cash < 0n) {
      insurance = -cash
      move(ctx, system, 'insurance', account, 'options', insurance, 'insurance', id)
    }
    const pnl = long ? payout - p.cost : p.cost - payout
    p.realized += pnl
    p.cost = 0n
    p.openTickLots = 0n
    p.lots = 0
    p.updatedAt = ctx.now
    ctx.state.trackHolding(account, lots, 0, p)
    ctx.touchPosition(p)
    // An expired position holds nothing any more, paid out or not.
    ctx.touchBalances(account)
    const row: PositionEventRow = {
      id, kind: 'settlement', userId: account.userId, marketId: market.spec.id, orderId: null, marginMode: p.marginMode,
      lots, closedLots: Math.abs(lots), notional: payout, pnl, fee: 0n, insurance, equity: null, maintenanceMargin: null, at: ctx.now,
    }
    ctx.changes.positionEvents.push(row)
  }
}
