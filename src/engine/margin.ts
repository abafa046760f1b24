// The engine's margin: the governing mark of an order, the risk arrays cached per instrument, and the
// perps bucket's cross margin — equity (balance + unrealized PnL of cross positions, less what isolated
// positions and orders hold) against the portfolio requirement of cross positions and open orders.
import { CORRELATION_CREDIT } from '../domain/correlation.js'
import { DomainError } from '../domain/errors.js'
import { microToString } from '../domain/decimal.js'
import { familyRisk, linearRiskArray, portfolioRequirement, type Exposure, type FamilyRisk } from '../domain/risk.js'
import type { Account, OrderExposure, Position } from './account.js'
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

export interface RiskArrays {
  im: bigint[]
  mm: bigint[]
  /** The mark in ticks the arrays were built at. */
  markTicks: number
}

/** Rebuilds a linear instrument's risk arrays at its new mark. */
export function riskArrays(market: MarketRuntime, markTicks: number): RiskArrays {
  const value = market.notional(markTicks, 1)
  return { im: linearRiskArray(value, market.initialMargin), mm: linearRiskArray(value, market.maintenanceMargin), markTicks }
}

/** Unrealized PnL of a linear position at a price in ticks. */
export function unrealized(market: MarketRuntime, p: Position, priceTicks: number): bigint {
  if (p.lots === 0) return 0n
  const value = market.notional(priceTicks, Math.abs(p.lots))
  return p.lots > 0 ? value - p.cost : p.cost - value
}

/** An order the margin should price as if it were already resting. */
export interface WhatIf {
  market: MarketRuntime
  side: 'buy' | 'sell'
  lots: number
  priceTicks: number
}

export interface CrossMargin {
  equity: bigint
  im: bigint
  mm: bigint
  /** Equity not committed as initial margin. */
  available: bigint
}

const NO_ORDERS: OrderExposure = { buyLots: 0, sellLots: 0, buyTickLots: 0n, sellTickLots: 0n }

function exposure(market: MarketRuntime, arrays: RiskArrays, range: 'im' | 'mm', lots: number, o: OrderExposure): Exposure {
  if (o.buyLots === 0 && o.sellLots === 0) return { array: arrays[range], lots, buyLots: 0, sellLots: 0, buyCost: 0n, sellCost: 0n }
  const k = market.microPerTickLot
  const m = BigInt(arrays.markTicks)
  const buyLoss = o.buyTickLots - m * BigInt(o.buyLots)
  const sellLoss = m * BigInt(o.sellLots) - o.sellTickLots
  return {
    array: arrays[range],
    lots,
    buyLots: o.buyLots,
    sellLots: o.sellLots,
    buyCost: buyLoss > 0n ? buyLoss * k : 0n,
    sellCost: sellLoss > 0n ? sellLoss * k : 0n,
  }
}

/** Each family's worst-scenario risk, for the initial and the maintenance ranges. */
interface FamilyRisks {
  assetClass: string
  im: FamilyRisk
  mm: FamilyRisk
}

interface Portfolio {
  equity: bigint
  families: Map<string, FamilyRisks>
}

/**
 * Equity and per-family risk of the perps bucket, with `extra` orders resting. With `only`, just those
 * families' risks are computed (the others are left out): an order changes its own family alone.
 */
function portfolio(state: EngineState, account: Account, extra: readonly WhatIf[], only?: ReadonlySet<string>): Portfolio {
  let equity = account.balance('perps') - account.isolatedOrderMargin
  const lots = new Map<string, number>()
  for (const p of account.positions.values()) {
    if (p.lots === 0) continue
    const market = state.markets.get(p.marketId)!
    if (!market.linear || market.spec.type === 'spot') continue
    if (p.marginMode === 'isolated') {
      equity -= p.isolatedMargin
      continue
    }
    const ticks = state.markTicks.get(p.marketId)
    if (ticks) equity += unrealized(market, p, ticks.ticks)
    lots.set(p.marketId, p.lots)
  }
  const markets = new Set([...lots.keys(), ...account.exposure.keys()])
  for (const w of extra) markets.add(w.market.spec.id)
  const exposures = new Map<string, { assetClass: string; im: Exposure[]; mm: Exposure[] }>()
  for (const id of markets) {
    const market = state.markets.get(id)!
    if (only && !only.has(market.spec.family)) continue
    const arrays = state.riskArrays.get(id)
    if (!arrays) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${id}`, { marketId: id })
    let orders = account.exposure.get(id) ?? NO_ORDERS
    for (const w of extra) {
      if (w.market !== market) continue
      const add = BigInt(w.lots) * BigInt(w.priceTicks)
      orders = w.side === 'buy'
        ? { ...orders, buyLots: orders.buyLots + w.lots, buyTickLots: orders.buyTickLots + add }
        : { ...orders, sellLots: orders.sellLots + w.lots, sellTickLots: orders.sellTickLots + add }
    }
    let f = exposures.get(market.spec.family)
    if (!f) exposures.set(market.spec.family, (f = { assetClass: market.spec.assetClass, im: [], mm: [] }))
    const held = lots.get(id) ?? 0
    f.im.push(exposure(market, arrays, 'im', held, orders))
    f.mm.push(exposure(market, arrays, 'mm', held, orders))
  }
  const families = new Map<string, FamilyRisks>()
  for (const [family, f] of exposures) families.set(family, { assetClass: f.assetClass, im: familyRisk(f.im), mm: familyRisk(f.mm) })
  return { equity, families }
}

function requirements(p: Portfolio): CrossMargin {
  const families = [...p.families.values()]
  const im = portfolioRequirement(families.map((f) => ({ ...f.im, assetClass: f.assetClass })), CORRELATION_CREDIT)
  const mm = portfolioRequirement(families.map((f) => ({ ...f.mm, assetClass: f.assetClass })), CORRELATION_CREDIT)
  return { equity: p.equity, im, mm, available: p.equity - im }
}

/** The cross margin of an account's perps bucket, optionally with more orders resting. */
export function crossMargin(state: EngineState, account: Account, extra: readonly WhatIf[] = []): CrossMargin {
  return requirements(portfolio(state, account, extra))
}

/** Initial margin one lot-quantity of an isolated position (or order) needs on its own. */
export function isolatedIm(market: MarketRuntime, priceTicks: number, lots: number): bigint {
  return applyRate(market.notional(priceTicks, lots), market.initialMargin)
}

export function isolatedMm(market: MarketRuntime, priceTicks: number, lots: number): bigint {
  return applyRate(market.notional(priceTicks, lots), market.maintenanceMargin)
}

export function insufficient(required: bigint, available: bigint): DomainError {
  return new DomainError('INSUFFICIENT_MARGIN', 'Initial margin too low', {
    requiredIm: microToString(required),
    availableIm: microToString(available > 0n ? available : 0n),
  })
}

export interface MarginImpact {
  /** What the orders add to the initial (maintenance) requirement; ≤ 0 when they lower it. */
  im: bigint
  mm: bigint
  /** Cross available before the orders. */
  available: bigint
}

/**
 * What new linear orders add to the margin, and whether they fit: cross orders must leave equity at or
 * above the portfolio's new requirement (orders that lower the requirement always fit); isolated orders'
 * own initial margin must fit in the cross available. `fits` false carries the INSUFFICIENT_MARGIN error.
 */
export function orderMarginImpact(state: EngineState, account: Account, orders: readonly WhatIf[], isolated: boolean): MarginImpact & { refusal: DomainError | null } {
  const held = portfolio(state, account, [])
  const before = requirements(held)
  if (isolated) {
    let im = 0n
    let mm = 0n
    for (const w of orders) {
      im += isolatedIm(w.market, w.priceTicks, w.lots)
      mm += isolatedMm(w.market, w.priceTicks, w.lots)
    }
    return { im, mm, available: before.available, refusal: im > before.available ? insufficient(im, before.available) : null }
  }
  // Only the orders' families change; the others' risks carry over from before.
  const changed = portfolio(state, account, orders, new Set(orders.map((w) => w.market.spec.family)))
  const after = requirements({ equity: held.equity, families: new Map([...held.families, ...changed.families]) })
  const im = after.im - before.im
  return { im, mm: after.mm - before.mm, available: before.available, refusal: im > 0n && after.im > after.equity ? insufficient(im, before.available) : null }
}

export function checkOrderMargin(state: EngineState, account: Account, orders: readonly WhatIf[], isolated: boolean): MarginImpact {
  const impact = orderMarginImpact(state, account, orders, isolated)
  if (impact.refusal) throw impact.refusal
  return impact
}
