// Marks: the feed's and the operator's observations of spot and futures, and the perpetual index the
// engine derives from the futures curve (DESIGN.md §5). A derived mark carries the oldest source time
// of its inputs, so staleness propagates and checks fail closed.
import { DomainError } from '../../domain/errors.js'
import { D, formatDecimal, parseDecimal } from '../../domain/decimal.js'
import type { MarkInput } from '../commands.js'
import type { Ctx } from '../context.js'
import { streams } from '../events.js'
import type { MarketRuntime } from '../marketRuntime.js'
import type { EngineState, Mark, MarkTicks } from '../state.js'
import { riskArrays } from '../margin.js'
import { refreshPerpetual } from '../perpetual.js'
import { fireTriggers } from '../triggers.js'
import { sampleSettlementTwaps } from '../expiry.js'
import { checkLiquidations } from '../liquidation.js'

/** How far a source clock may run ahead of the engine's before its observation is refused. */
export const MAX_SOURCE_SKEW_MS = 1_000

function validate(ctx: Ctx, input: MarkInput): MarketRuntime {
  const market = ctx.state.markets.get(input.marketId)
  if (!market) throw new DomainError('MARKET_NOT_FOUND', `Unknown market ${input.marketId}`)
  if (market.spec.type !== 'spot' && market.spec.type !== 'future') {
    throw new DomainError('INVALID_REQUEST', `Marks are taken for spot and futures; ${input.marketId} derives its own`)
  }
  const price = parseDecimal(input.price)
  // The column keeps 18 decimals; more would be rounded silently on the way to PostgreSQL.
  if (!price || !price.gt(0) || price.decimalPlaces() > 18) {
    throw new DomainError('INVALID_REQUEST', 'Mark price must be a positive decimal string with at most 18 decimals')
  }
  if (!Number.isSafeInteger(input.sourceTs) || input.sourceTs <= 0) {
    throw new DomainError('INVALID_REQUEST', 'sourceTimestamp must be a positive integer of unix ms')
  }
  // A mark from the future would never go stale: fail closed.
  if (input.sourceTs > ctx.now + MAX_SOURCE_SKEW_MS) {
    throw new DomainError('INVALID_REQUEST', 'sourceTimestamp is in the future', { sourceTimestamp: input.sourceTs, engineTs: ctx.now })
  }
  if (typeof input.source !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(input.source)) {
    throw new DomainError('INVALID_REQUEST', 'source must be a short lowercase name')
  }
  return market
}

/** What the engine derives from a mark: the mark on the tick, the band, the risk arrays. */
export function setDerived(state: EngineState, market: MarketRuntime, price: string): void {
  const ticks = markTicks(market, price)
  state.markTicks.set(market.spec.id, ticks)
  if (market.linear && market.spec.type !== 'spot') market.risk = riskArrays(market, ticks.ticks)
}

/** The mark on the tick and the ±band around it, inward to the tick. */
export function markTicks(market: MarketRuntime, price: string): MarkTicks {
  const inTicks = D(price).div(market.tick)
  const bps = market.spec.priceBandBps
  return {
    ticks: inTicks.toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber(),
    bandLow: inTicks.mul(10_000 - bps).div(10_000).ceil().toNumber(),
    bandHigh: inTicks.mul(10_000 + bps).div(10_000).floor().toNumber(),
  }
}

function setMark(ctx: Ctx, market: MarketRuntime, mark: Omit<Mark, 'engineTs' | 'marketId'>): void {
  const stored: Mark = { marketId: market.spec.id, engineTs: ctx.now, ...mark }
  ctx.state.marks.set(stored.marketId, stored)
  ctx.state.valuationEpoch++
  setDerived(ctx.state, market, stored.price)
  fireTriggers(ctx, market)
  ctx.changes.marks.push(stored)
  ctx.emit(
    ctx.state.counter(streams.marks(market.spec.family)),
    'MarkPrice',
    { marketId: stored.marketId, price: stored.price, indexPrice: stored.indexPrice, source: stored.source },
    stored.sourceTs,
  )
}

/** Applies a set of observations atomically: all are validated before any is taken. */
export function updateMarks(ctx: Ctx, inputs: MarkInput[]): { accepted: number } {
  if (!Array.isArray(inputs) || inputs.length === 0) throw new DomainError('INVALID_REQUEST', 'marks must be a non-empty list')
  const markets = inputs.map((input) => validate(ctx, input))
  // Close the outgoing prices' intervals in the settlement TWAPs (spot for futures, spot or a future for
  // options) before the marks move.
  for (const family of new Set(markets.map((m) => m.spec.family))) sampleSettlementTwaps(ctx, family)
  const families = new Set<string>()
  let accepted = 0
  inputs.forEach((input, i) => {
    const market = markets[i]!
    const prev = ctx.state.marks.get(input.marketId)
    // A late observation never overwrites a newer one.
    if (prev && prev.sourceTs > input.sourceTs) return
    setMark(ctx, market, {
      price: formatDecimal(D(input.price)),
      indexPrice: null,
      source: input.source,
      sourceTs: input.sourceTs,
    })
    families.add(market.spec.family)
    accepted++
  })
  for (const family of families) {
    refreshPerpetual(ctx, family, (p, mark, idx, ts) => setPerpMark(ctx, p, mark, idx, ts))
    sampleSettlementTwaps(ctx, family)
  }
  touchOptionAccounts(ctx, families)
  checkLiquidations(ctx)
  return { accepted }
}

/** Records a perpetual's mark (index + premium) when it moved; false when unchanged. */
function setPerpMark(ctx: Ctx, perp: MarketRuntime, markTicks: number, indexTicks: number, sourceTs: number): boolean {
  const price = perp.prices.format(markTicks)
  const indexPrice = perp.prices.format(indexTicks)
  const prev = ctx.state.marks.get(perp.spec.id)
  if (prev && prev.price === price && prev.indexPrice === indexPrice && prev.sourceTs === sourceTs) return false
  setMark(ctx, perp, { price, indexPrice, source: 'curve', sourceTs })
  return true
}

/** Time-driven work at the engine's time (the scheduler's Tick): perpetual marks and funding, settlement TWAPs, liquidations. */
export function onTick(ctx: Ctx): void {
  // In family order: a restored engine's maps iterate differently from a live one's.
  const families = [...new Set([...ctx.state.markets.values()].map((m) => m.spec.family))].sort()
  for (const family of families) {
    refreshPerpetual(ctx, family, (p, mark, idx, ts) => setPerpMark(ctx, p, mark, idx, ts))
    sampleSettlementTwaps(ctx, family)
  }
  checkLiquidations(ctx)
}

/**
 * Option values and premiums move with spot and the forwards: so does what the options bucket holds back
 * for positions and open orders. Their owners' balances are re-told, in user id order (a restored
 * engine's sets iterate differently from a live one's).
 */
function touchOptionAccounts(ctx: Ctx, families: ReadonlySet<string>): void {
  const accounts = new Set(ctx.state.optionHolders)
  for (const m of ctx.state.markets.values()) if (m.exposed.size > 0 && families.has(m.spec.family)) for (const a of m.exposed) accounts.add(a)
  if (accounts.size === 0) return
  for (const account of [...accounts].sort((a, b) => (a.userId < b.userId ? -1 : 1))) ctx.touchBalances(account)
}
