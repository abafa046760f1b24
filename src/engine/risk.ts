// The engine's one margin check. This is the simple rule of the trading issue: initial margin is
// R_IM × notional for each position (at the mark) and each open order (at its price), against the
// perps bucket's equity (balance + unrealized PnL). The portfolio model replaces it behind the same
// functions.
import { DomainError } from '../domain/errors.js'
import { microToString } from '../domain/decimal.js'
import type { Account, Position } from './account.js'
import type { Ctx } from './context.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import type { EngineState, Mark, MarkTicks } from './state.js'

/** The mark an order is judged against; refused when missing or older than the market's threshold. */
export function governingMark(ctx: Ctx, market: MarketRuntime): { mark: Mark; ticks: MarkTicks } {
  const mark = ctx.state.marks.get(market.spec.id)
  const ticks = ctx.state.markTicks.get(market.spec.id)
  if (!mark || !ticks) throw new DomainError('MISSING_MARK_PRICE', `No mark price for ${market.spec.id}`)
  const age = ctx.now - mark.sourceTs
  if (age > market.spec.staleMarkMs) {
    throw new DomainError('STALE_MARK_PRICE', `Mark price for ${market.spec.id} is ${age} ms old`, {
      sourceTimestamp: mark.sourceTs,
      ageMs: age,
      thresholdMs: market.spec.staleMarkMs,
    })
  }
  return { mark, ticks }
}

/** Unrealized PnL of a linear position at a price in ticks. */
export function unrealized(market: MarketRuntime, p: Position, priceTicks: number): bigint {
  if (p.lots === 0) return 0n
  const value = market.notional(priceTicks, Math.abs(p.lots))
  return p.lots > 0 ? value - p.cost : p.cost - value
}

/** Initial margin an open order reserves: R_IM × its notional. */
export function orderMargin(market: MarketRuntime, priceTicks: number, lots: number): bigint {
  return applyRate(market.notional(priceTicks, lots), market.initialMargin)
}

export interface PerpsMargin {
  equity: bigint
  positionIm: bigint
  positionMm: bigint
  orderIm: bigint
  /** Equity not yet committed as initial margin. */
  available: bigint
}

/** The perps bucket's margin state, positions valued at their marks (at cost when a mark is missing). */
export function perpsMargin(state: EngineState, account: Account): PerpsMargin {
  let equity = account.balance('perps')
  let positionIm = 0n
  let positionMm = 0n
  for (const p of account.positions.values()) {
    if (p.lots === 0) continue
    const market = state.markets.get(p.marketId)!
    if (market.spec.type === 'spot') continue
    const ticks = state.markTicks.get(p.marketId)?.ticks
    const value = ticks === undefined ? p.cost : market.notional(ticks, Math.abs(p.lots))
    if (ticks !== undefined) equity += unrealized(market, p, ticks)
    positionIm += applyRate(value, market.initialMargin)
    positionMm += applyRate(value, market.maintenanceMargin)
  }
  return { equity, positionIm, positionMm, orderIm: account.orderMargin, available: equity - positionIm - account.orderMargin }
}

export function requireMargin(required: bigint, available: bigint): void {
  if (required > available) {
    throw new DomainError('INSUFFICIENT_MARGIN', 'Initial margin too low', {
      requiredIm: microToString(required),
      availableIm: microToString(available > 0n ? available : 0n),
    })
  }
}
