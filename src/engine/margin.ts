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
  /** The mark in ticks the arrays were built at (a bigint: it prices open orders against it). */
  mark: bigint
}

/** Rebuilds a linear instrument's risk arrays at its new mark. */
export function riskArrays(market: MarketRuntime, markTicks: number): RiskArrays {
  const value = market.notional(markTicks, 1)
  return {
    im: linearRiskArray(value, market.initialMargin),
    mm: linearRiskArray(value, market.maintenanceMargin),
    mark: BigInt(markTicks),
  }
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

/** One market's exposure on one range: held lots, and open orders (buys/sells: lots and Σ price × lots). */
function exposure(market: MarketRuntime, arrays: RiskArrays, range: 'im' | 'mm', lots: number, buyLots: number, sellLots: number, buyTickLots: bigint, sellTickLots: bigint): Exposure {
  if (buyLots === 0 && sellLots === 0) return { array: arrays[range], lots, buyLots: 0, sellLots: 0, buyCost: 0n, sellCost: 0n }
  const k = market.microPerTickLot
  const m = arrays.mark
  const buyLoss = buyTickLots - m * BigInt(buyLots)
  const sellLoss = m * BigInt(sellLots) - sellTickLots
  return {
    array: arrays[range],
    lots,
    buyLots,
    sellLots,
    buyCost: buyLoss > 0n ? buyLoss * k : 0n,
    sellCost: sellLoss > 0n ? sellLoss * k : 0n,
  }
}

/** One family's exposures while a portfolio is gathered, then its worst-scenario risks. */
interface Family {
  readonly name: string
  readonly assetClass: string
  readonly im: Exposure[]
  /** Null when the maintenance range is not asked for. */
  readonly mm: Exposure[] | null
}

interface FamilyRisks {
  readonly name: string
  readonly assetClass: string
  readonly im: FamilyRisk
  readonly mm: FamilyRisk | null
}

interface Portfolio {
  equity: bigint
  /** A list, not a map: an account spans at most a few families. */
  families: FamilyRisks[]
}

/** Whether the account holds a cross position in a linear derivative market (the portfolio's positions). */
function holdsCross(state: EngineState, account: Account, id: string): boolean {
  const p = account.positions.get(id)
  if (p === undefined || p.lots === 0 || p.marginMode === 'isolated') return false
  const market = state.markets.get(id)!
  return market.linear && market.spec.type !== 'spot'
}

/** Adds one market's exposure (held lots, its open orders and any extra orders) to its family. */
function addExposure(state: EngineState, account: Account, extra: readonly WhatIf[], families: Family[], withMm: boolean, only: ReadonlySet<string> | undefined, id: string, held: number): void {
  const market = state.markets.get(id)!
  const name = market.spec.family
  if (only !== undefined && !only.has(name)) return
  const arrays = state.riskArrays.get(id)
  if (!arrays) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${id}`, { marketId: id })
  const open = account.exposure.get(id) ?? NO_ORDERS
  let { buyLots, sellLots, buyTickLots, sellTickLots } = open
  for (let i = 0; i < extra.length; i++) {
    const w = extra[i]!
    if (w.market !== market) continue
    const more = BigInt(w.lots) * BigInt(w.priceTicks)
    if (w.side === 'buy') {
      buyLots += w.lots
      buyTickLots += more
    } else {
      sellLots += w.lots
      sellTickLots += more
    }
  }
  let family: Family | undefined
  for (let i = 0; i < families.length && family === undefined; i++) if (families[i]!.name === name) family = families[i]
  if (family === undefined) families.push((family = { name, assetClass: market.spec.assetClass, im: [], mm: withMm ? [] : null }))
  family.im.push(exposure(market, arrays, 'im', held, buyLots, sellLots, buyTickLots, sellTickLots))
  family.mm?.push(exposure(market, arrays, 'mm', held, buyLots, sellLots, buyTickLots, sellTickLots))
}

/**
 * Equity and per-family risk of the perps bucket, with `extra` orders resting: every market with a
 * cross position, open orders or an extra order. With `only`, just those families' risks are computed
 * (an order changes its own family alone); `withMm` false skips the maintenance range (order checks).
 * This runs on every order: no closures and few allocations.
 */
function portfolio(state: EngineState, account: Account, extra: readonly WhatIf[], withMm: boolean, only?: ReadonlySet<string>): Portfolio {
  let equity = account.balance('perps') - account.isolatedOrderMargin
  const families: Family[] = []
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
    addExposure(state, account, extra, families, withMm, only, p.marketId, p.lots)
  }
  for (const id of account.exposure.keys()) if (!holdsCross(state, account, id)) addExposure(state, account, extra, families, withMm, only, id, 0)
  for (let i = 0; i < extra.length; i++) {
    const id = extra[i]!.market.spec.id
    if (holdsCross(state, account, id) || account.exposure.has(id)) continue
    let first = true
    for (let j = 0; j < i; j++) if (extra[j]!.market === extra[i]!.market) first = false
    if (first) addExposure(state, account, extra, families, withMm, only, id, 0)
  }
  const risks: FamilyRisks[] = new Array<FamilyRisks>(families.length)
  for (let i = 0; i < families.length; i++) {
    const f = families[i]!
    risks[i] = { name: f.name, assetClass: f.assetClass, im: familyRisk(f.im), mm: f.mm && familyRisk(f.mm) }
  }
  return { equity, families: risks }
}

/** The portfolio requirement of one range; a single family earns no credit. */
function requirement(families: readonly FamilyRisks[], range: 'im' | 'mm'): bigint {
  if (families.length === 0) return 0n
  if (families.length === 1) return families[0]![range]!.requirement
  return portfolioRequirement(families.map((f) => ({ ...f[range]!, assetClass: f.assetClass })), CORRELATION_CREDIT)
}

function requirements(p: Portfolio): CrossMargin {
  const im = requirement(p.families, 'im')
  let withMm = true
  for (const f of p.families) if (f.mm === null) withMm = false
  return { equity: p.equity, im, mm: withMm ? requirement(p.families, 'mm') : 0n, available: p.equity - im }
}

/** The cross margin of an account's perps bucket, optionally with more orders resting. */
export function crossMargin(state: EngineState, account: Account, extra: readonly WhatIf[] = []): CrossMargin {
  return requirements(portfolio(state, account, extra, true))
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
 * own initial margin must fit in the cross available. `refusal` is the INSUFFICIENT_MARGIN error when
 * they do not. `withMm` false leaves the maintenance figure at 0 (placement needs only the initial).
 */
export function orderMarginImpact(state: EngineState, account: Account, orders: readonly WhatIf[], isolated: boolean, withMm = true): MarginImpact & { refusal: DomainError | null } {
  const held = portfolio(state, account, [], withMm && !isolated)
  const before = requirements(held)
  if (isolated) {
    let im = 0n
    let mm = 0n
    for (const w of orders) {
      im += isolatedIm(w.market, w.priceTicks, w.lots)
      if (withMm) mm += isolatedMm(w.market, w.priceTicks, w.lots)
    }
    return { im, mm, available: before.available, refusal: im > before.available ? insufficient(im, before.available) : null }
  }
  // Only the orders' families change; the others' risks carry over from before.
  const families = new Set<string>()
  for (const w of orders) families.add(w.market.spec.family)
  const changed = portfolio(state, account, orders, withMm, families)
  const untouched = held.families.filter((f) => !families.has(f.name))
  const after = requirements({ equity: held.equity, families: [...untouched, ...changed.families] })
  const im = after.im - before.im
  return { im, mm: after.mm - before.mm, available: before.available, refusal: im > 0n && after.im > after.equity ? insufficient(im, before.available) : null }
}

/**
 * Throws INSUFFICIENT_MARGIN when the orders do not fit (the placement check): the same verdict as
 * orderMarginImpact, cheaper in the common case. A cross portfolio whose requirement with the orders is
 * covered by its equity fits whatever it was before, so the portfolio without them is priced only when
 * it is not (to let an order that lowers the requirement through).
 */
export function checkOrderMargin(state: EngineState, account: Account, orders: readonly WhatIf[], isolated: boolean): void {
  if (isolated) {
    const { refusal } = orderMarginImpact(state, account, orders, true, false)
    if (refusal) throw refusal
    return
  }
  const after = requirements(portfolio(state, account, orders, false))
  if (after.im <= after.equity) return
  const before = requirements(portfolio(state, account, [], false))
  if (after.im > before.im) throw insufficient(after.im - before.im, before.available)
}
