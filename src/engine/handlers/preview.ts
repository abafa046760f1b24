// Order preview: the placement checks, run exactly as placeOrder runs them, without changing anything.
// It answers whether the order would be accepted (else the code it would get), what it adds to the
// initial and maintenance margin, the fee it would pay, and — beyond the spec — an estimated
// liquidation price of the resulting position.
import { microToString } from '../../domain/decimal.js'
import { DomainError } from '../../domain/errors.js'
import type { OrderSpec } from '../../domain/orders.js'
import type { Account } from '../account.js'
import { BUY, SELL } from '../book/types.js'
import type { Ctx } from '../context.js'
import { crossMargin, orderMarginImpact } from '../margin.js'
import { applyRate, type MarketRuntime } from '../marketRuntime.js'
import { optionsBucket } from '../optionMargin.js'
import { optionBand, optionFee, optionLinks, premiumOf, valuationOf } from '../optionPricing.js'
import { checkNewOrder, checkSpec, marketOf, requireActive, tradingAccount, type MarketKind } from '../admission.js'

export interface Preview {
  approved: boolean
  reason: string | null
  marginImpact: { initialMargin: string; maintenanceMargin: string }
  estimatedFee: string
  liquidationPrice: string | null
}

export function previewOrder(ctx: Ctx, userId: string, spec: OrderSpec, kind?: MarketKind): Preview {
  let reason: string | null = null
  let market: MarketRuntime | null = null
  let account: Account | null = null
  try {
    market = marketOf(ctx, spec?.marketId, kind)
    checkSpec(spec, market)
    requireActive(ctx, market)
    account = tradingAccount(ctx, userId)
    checkNewOrder(ctx, account, market, spec)
  } catch (err) {
    if (!(err instanceof DomainError)) throw err
    reason = err.code
  }
  const zero = { approved: reason === null, reason, marginImpact: { initialMargin: '0', maintenanceMargin: '0' }, estimatedFee: '0', liquidationPrice: null }
  if (market && account && !market.linear) return previewOption(ctx, account, market, spec, zero)
  const ticks = market && ctx.state.markTicks.get(market.spec.id)
  if (!market || !account || !ticks) return zero
  const price = spec.priceTicks ?? ticks.ticks
  const notional = market.notional(price, spec.lots)
  // Taker fee when it would trade on arrival, maker fee when it would rest.
  const crosses = spec.type === 'market' || market.book.wouldCross(spec.side === 'buy' ? BUY : SELL, price)
  const estimatedFee = microToString(applyRate(notional, crosses ? market.takerFee : market.makerFee))
  if (market.spec.type === 'spot' || spec.reduceOnly) return { ...zero, estimatedFee }
  let impact
  try {
    impact = orderMarginImpact(account, [{ market, side: spec.side, lots: spec.lots, priceTicks: price }], spec.marginMode === 'isolated')
  } catch (err) {
    if (err instanceof DomainError) return { ...zero, estimatedFee }
    throw err
  }
  return {
    approved: reason === null,
    reason,
    marginImpact: { initialMargin: microToString(impact.im), maintenanceMargin: microToString(impact.mm) },
    estimatedFee,
    liquidationPrice: liquidationPrice(ctx, account, market, spec, ticks.ticks),
  }
}

/**
 * Where the resulting position would be liquidated, other positions and marks held still: the price P
 * at which equity + q·(P − mark) equals the maintenance margin of the others plus |q|·P·mmr. An
 * estimate in floating point (the portfolio's scenario grid is not linear in P for every portfolio),
 * rounded to the tick; null when there is none.
 */
function liquidationPrice(ctx: Ctx, account: Account, market: MarketRuntime, spec: OrderSpec, markTicks: number): string | null {
  const held = account.positions.get(market.spec.id)
  const q = (held?.lots ?? 0) + (spec.side === 'buy' ? spec.lots : -spec.lots)
  if (q === 0) return null
  const k = Number(market.microPerTickLot)
  const r = Number(market.maintenanceMargin) / 1e6
  let equity: number
  let othersMm: number
  if (spec.marginMode === 'isolated') {
    equity = Number(held?.isolatedMargin ?? 0n) + Number(applyRate(market.notional(markTicks, spec.lots), market.initialMargin))
    othersMm = 0
  } else {
    const m = crossMargin(account)
    equity = Number(m.equity)
    othersMm = Math.max(0, Number(m.mm) - Math.abs(held?.lots ?? 0) * markTicks * k * r)
  }
  const p = (othersMm - equity + q * k * markTicks) / (k * (q - Math.abs(q) * r))
  return Number.isFinite(p) && p > 0 ? market.prices.format(Math.round(p)) : null
}

/** An option order's preview: what it takes from the options bucket's available (initial margin of a
 * sell, premium and fee of a buy) and adds to its maintenance margin, and its fee at the limit. */
function previewOption(ctx: Ctx, account: Account, market: MarketRuntime, spec: OrderSpec, zero: Preview): Preview {
  const v = valuationOf(ctx.state, market)
  if (!v) return zero
  const { bandLow, bandHigh } = optionBand(market, v)
  const price = spec.priceTicks ?? (spec.side === 'buy' ? bandHigh : bandLow)
  const spot = optionLinks(ctx.state, market).spot
  const crosses = spec.type === 'market' || market.book.wouldCross(spec.side === 'buy' ? BUY : SELL, price)
  const premium = premiumOf(market, spot, price, spec.lots, v.spotTicks)
  const estimatedFee = microToString(optionFee(market, spot, spec.lots, v.spotTicks, premium, crosses ? market.takerFee : market.makerFee))
  if (spec.reduceOnly && spec.side === 'sell') return { ...zero, estimatedFee }
  try {
    const before = optionsBucket(ctx.state, account)
    const after = optionsBucket(ctx.state, account, [{ market, side: spec.side, lots: spec.lots, priceTicks: price }])
    const im = after.im + after.buyReserve - (before.im + before.buyReserve)
    return { ...zero, marginImpact: { initialMargin: microToString(im), maintenanceMargin: microToString(after.mm - before.mm) }, estimatedFee }
  } catch (err) {
    if (err instanceof DomainError) return { ...zero, estimatedFee }
    throw err
  }
}
