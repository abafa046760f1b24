// Expiry (DESIGN.md §7): a future settles at the time-weighted average of its family's spot mark over
// the 30 minutes before expiry; its orders are cancelled and every position is closed at that price with
// its realized PnL. An option settles the same way against the TWAP of its forward's source (the
// matching future's mark; spot's for a weekly): optionExpiry.ts. The TWAPs are integrated as marks
// arrive, inside engine commands.
import { D } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import { engineId } from '../domain/ids.js'
import type { Ctx } from './context.js'
import { cancelOrders } from './orderLifecycle.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { PositionEventRow } from './positionEvents.js'
import { movePosition } from './settlement.js'
import { optionLinks } from './optionPricing.js'

export const SETTLEMENT_TWAP_MS = 30 * 60_000

/** Σ spot ticks × ms over the window so far, and the spot in effect since `at`. */
export interface TwapState {
  sum: number
  ms: number
  at: number | null
  ticks: number | null
}

/**
 * Integrates the spot mark in effect since the last sample into the settlement TWAP of every future in
 * its final 30 minutes, then records the current spot. Called before a spot mark changes (to close the
 * old price's interval) and after (to start the new one).
 */
export function sampleSettlementTwaps(ctx: Ctx, family: string): void {
  let spot: MarketRuntime | undefined
  for (const m of ctx.state.markets.values()) if (m.spec.family === family && m.spec.type === 'spot') spot = m
  for (const f of ctx.state.markets.values()) {
    if (f.spec.family !== family || (f.spec.type !== 'future' && f.spec.type !== 'option') || f.status === 'settled') continue
    const expiry = f.spec.expiryMs!
    // Tracked from an hour before expiry, so the spot in effect when the window opens is known.
    if (ctx.now < expiry - 2 * SETTLEMENT_TWAP_MS && !f.twap) continue
    const t = (f.twap ??= { sum: 0, ms: 0, at: null, ticks: null })
    if (t.at !== null && t.ticks !== null) {
      const from = Math.max(t.at, expiry - SETTLEMENT_TWAP_MS)
      const to = Math.min(ctx.now, expiry)
      if (to > from) {
        t.sum += t.ticks * (to - from)
        t.ms += to - from
      }
    }
    t.at = ctx.now
    // A future's TWAP is of spot in its own ticks; an option's of its forward's source, in that market's.
    const source = f.spec.type === 'future' ? spot : settlementSource(ctx, f)
    const unit = f.spec.type === 'future' ? f : source
    const mark = source && ctx.state.marks.get(source.spec.id)
    t.ticks = mark && unit ? D(mark.price).div(unit.tick).toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber() : t.ticks
    ctx.changes.markets.add(f.spec.id)
  }
}

/** The market whose mark an option settles against: the matching future, else the family's spot. */
export function settlementSource(ctx: Ctx, option: MarketRuntime): MarketRuntime | undefined {
  try {
    const links = optionLinks(ctx.state, option)
    return links.future ?? links.spot
  } catch (err) {
    if (err instanceof DomainError) return undefined // a family without spot has nothing to settle against
    throw err
  }
}

/** The settlement price in ticks (of `unit`): the TWAP, or without samples the last price sampled, else
 * `unit`'s own mark. */
export function settlementTicks(ctx: Ctx, market: MarketRuntime, unit: MarketRuntime = market): number | null {
  const t = market.twap
  if (t && t.ms > 0) return Math.round(t.sum / t.ms)
  if (t?.ticks !== null && t?.ticks !== undefined) return t.ticks
  return ctx.state.markTicks.get(unit.spec.id)?.ticks ?? null
}

/** Settles an expired future: orders cancelled, every position closed at the settlement price. */
export function settleFuture(ctx: Ctx, market: MarketRuntime): void {
  sampleSettlementTwaps(ctx, market.spec.family)
  const price = settlementTicks(ctx, market)
  const orders = [...ctx.state.orders.values()].filter((o) => o.marketId === market.spec.id).sort((a, b) => a.seq - b.seq)
  cancelOrders(ctx, orders, 'expired')
  if (price === null) return
  market.settlementPrice = market.prices.format(price)
  const holders = [...ctx.state.accounts.values()]
    .filter((a) => (a.positions.get(market.spec.id)?.lots ?? 0) !== 0)
    .sort((a, b) => (a.userId < b.userId ? -1 : 1))
  for (const account of holders) {
    const p = account.positions.get(market.spec.id)!
    const lots = p.lots
    const closed = Math.abs(lots)
    const notional = market.notional(price, closed)
    const id = engineId(ctx.now, ctx.state.next('settlement'))
    // An isolated position's margin is released; a loss beyond it is covered, as isolation promises.
    const { pnl, insurance } = movePosition(ctx, market, account, p, lots > 0 ? 'sell' : 'buy', closed, price, notional, id, 'settlement')
    const row: PositionEventRow = {
      id, kind: 'settlement', userId: account.userId, marketId: market.spec.id, orderId: null, marginMode: p.marginMode,
      lots, closedLots: closed, notional, pnl, fee: 0n, insurance, equity: null, maintenanceMargin: null, at: ctx.now,
    }
    ctx.changes.positionEvents.push(row)
  }
}
