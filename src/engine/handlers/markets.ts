// Market lifecycle: listing, halt/resume, expiry.
import { DomainError } from '../../domain/errors.js'
import { canonicalSpec, type MarketSpec } from '../../domain/market.js'
import type { Ctx } from '../context.js'
import { streams } from '../events.js'
import { MarketRuntime, invalidSpec } from '../marketRuntime.js'
import { newPerpState } from '../perpetual.js'
import { settleFuture } from '../expiry.js'
import { settleOption } from '../optionExpiry.js'

export function marketOrThrow(ctx: Ctx, marketId: string): MarketRuntime {
  const market = ctx.state.markets.get(marketId)
  if (!market) throw new DomainError('MARKET_NOT_FOUND', `Unknown market ${marketId}`)
  return market
}

function emitStatus(ctx: Ctx, market: MarketRuntime): void {
  ctx.changes.markets.add(market.spec.id)
  ctx.emit(ctx.state.counter(streams.markets), 'MarketStatus', { marketId: market.spec.id, status: market.status })
}

/** Lists the markets not listed yet; already-listed ids are left as they are. Returns the new ids. */
export function listMarkets(ctx: Ctx, specs: MarketSpec[]): string[] {
  for (const spec of specs) {
    const why = invalidSpec(spec)
    if (why) throw new DomainError('INVALID_REQUEST', `Cannot list ${spec.id}: ${why}`)
  }
  const listed: string[] = []
  for (const spec of specs) {
    if (ctx.state.markets.has(spec.id)) continue
    const market = new MarketRuntime(canonicalSpec({ ...spec, listedAtMs: ctx.now }), ctx.state)
    if (market.spec.type === 'perpetual') market.perp = newPerpState(market, ctx.now)
    ctx.state.markets.set(spec.id, market)
    ctx.state.valuationEpoch++
    listed.push(spec.id)
    // Its (empty) book mirror exists from the listing on, stamped with the engine's time.
    ctx.changes.books.add(spec.id)
    emitStatus(ctx, market)
  }
  return listed
}

export function setMarketStatus(ctx: Ctx, marketId: string, status: 'active' | 'halted'): { marketId: string; status: string } {
  const market = marketOrThrow(ctx, marketId)
  if (market.status === 'settled') throw new DomainError('MARKET_HALTED', `${marketId} is settled`)
  if (market.status !== status) {
    market.status = status
    emitStatus(ctx, market)
  }
  return { marketId, status }
}

/** Retires an expired market: it stops trading and keeps its history. */
export function expireMarket(ctx: Ctx, marketId: string): { marketId: string; status: string } {
  const market = marketOrThrow(ctx, marketId)
  const expiry = market.spec.expiryMs
  if (expiry === null || ctx.now < expiry) {
    throw new DomainError('INVALID_REQUEST', `${marketId} has not expired`)
  }
  if (market.status !== 'settled') {
    if (market.spec.type === 'future') settleFuture(ctx, market)
    else if (market.spec.type === 'option') settleOption(ctx, market)
    market.status = 'settled'
    market.settledAtMs = ctx.now
    emitStatus(ctx, market)
  }
  return { marketId, status: market.status }
}
